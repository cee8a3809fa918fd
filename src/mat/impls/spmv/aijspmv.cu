/*
   The generic sequential type seqaij<fmt>: an aijcusparse matrix (SeqAIJ without a GPU) whose MatMult and
   MatMultAdd run a sparse format. Written once for every format (spmvformat.h is the contract).

   - Everything else is the parent's, through the parent's own function pointers: assembly, MatSetValues(COO)
     with host or device values, transposes, MatScale/MatShift/MatAXPY/..., matrix products (PtAP in GAMG),
     factorizations, MatBindToCPU. The parent keeps the CSR (on the device with aijcusparse) and its host/device
     state. An inherited call costs exactly what it costs on the parent: no wrapper runs in between.
   - The format is built from the parent's device CSR (MatSeqAIJCUSPARSEGetIJ/GetArrayRead) at the first
     product after a change: a new nonzero pattern (A->nonzerostate, new device arrays, or new implementation
     data after MatHeaderMerge) rebuilds it, new values (object state; the parent increases it for device writes
     too) refresh it, from device memory.
   - Products: on the GPU the format's kernels; without a GPU the parent's own (SeqAIJ's, the fastest CPU
     product); -mat_spmv_host_reference runs the format's host reference instead (the tests do, so CI executes
     every layout).

   The overlay. The type keeps its own name (seqaij<fmt>), so MatGetType(), MatConvert() and -mat_view say what
   the user chose; the parent's operations stay in the operation table untouched, except the few the overlay
   replaces (products, bind, options, view, duplicate, and the product dispatch). Its state lives in a container
   composed on the matrix header, so it follows the header through MatHeaderMerge (which keeps the header's
   operations and composed objects and takes another matrix's data: MatAXPY with DIFFERENT_NONZERO_PATTERN in
   GAMG's graph, in-place transposes) and MatHeaderReplace (which swaps whole headers: in-place conversions), and
   is freed with the header.
   Type names. PETSc's aijcusparse code compares type names exactly in two places: its product dispatch and
   phases (composed names, PetscObjectTypeCompare of the operands), handled by the product thunks below that lend
   the plugin operands the parent's name for the parent's call; and PetscCheckTypeName, which only a debug PETSc
   compiles in (PETSC_USE_DEBUG). In a debug PETSc (or with -mat_spmv_lend_type_name) every inherited operation
   of the table gets a thunk that lends the name too; an optimized PETSc needs none, and its inherited calls run
   at the parent's cost (MatSetValues_SeqAIJ calls the array accessors on every call: a thunk there cost 3-7x the
   parent's assembly time). The SeqAIJ array accessors of aijcusparse never check names: they are never wrapped.
   The blocks of mpiaij<fmt> carry the overlay under the parent's own name (seqaijcusparse), so the MPI parent's
   code sees plain aijcusparse blocks and nothing is ever lent.
*/
#define PETSC_SKIP_IMMINTRIN_H_CUDAWORKAROUND 1
#include "spmvimpl.h"
#include "spmvdevice.cuh"
#include <petscdevice_cuda.h>
#include <../src/mat/impls/aij/seq/aij.h>
#include <array>
#include <tuple>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

PETSC_EXTERN PetscErrorCode MatCreate_SeqAIJCUSPARSE(Mat);

PetscLogEvent MAT_SpMV_Build = 0, MAT_SpMV_Refresh = 0;

namespace {
/* composed functions of the parent that reach type-checked code (debug PETSc); the product ones are handled apart */
enum ComposedId {
  kSetPreallocationCOO,
  kSetValuesCOO,
  kCopySubArray,
  kNumComposed
};
constexpr const char *kComposedNames[kNumComposed] = {"MatSetPreallocationCOO_C", "MatSetValuesCOO_C", "MatSeqAIJCopySubArray_C"};
/* the parent's product dispatch, composed under names; all lead to the product thunk */
constexpr const char *kProductNames[] = {"MatProductSetFromOptions_seqaijcusparse_seqdensecuda_C", "MatProductSetFromOptions_seqaijcusparse_seqdense_C", "MatProductSetFromOptions_seqaijcusparse_seqaijcusparse_C", "MatProductSetFromOptions_anytype_C"};
/* Who runs the products */
enum Exec {
  kParent, /* the parent's own product (no GPU, format not built) */
  kHost,   /* the format's host reference (-mat_spmv_host_reference) */
  kDevice  /* the format's GPU kernels */
};

/* The parent's entries of the operations the overlay replaces or wraps (the thunks below name each one; a thunk for an
   operation not listed here does not compile): a copy of the whole table (1.2 kB) made every overlay a large
   allocation, off the allocator's fast path */
#define SPMV_PARENT_OPS(X) \
  X(mult) X(multadd) X(bindtocpu) X(setfromoptions) X(view) X(duplicate) X(productsetfromoptions) \
  X(convertfrom) X(convert) X(multtranspose) X(multtransposeadd) X(multhermitiantranspose) \
  X(multhermitiantransposeadd) X(scale) X(shift) X(getdiagonal) X(diagonalscale) X(diagonalset) X(axpy) \
  X(zeroentries) X(zerorows) X(zerorowscolumns) X(copy) X(getcurrentmemtype) X(assemblyend) X(setoption) \
  X(setup) X(getrowmaxabs)
struct ParentOps {
#define SPMV_PARENT_OP(op) decltype(_MatOps::op) op = nullptr;
  SPMV_PARENT_OPS(SPMV_PARENT_OP)
#undef SPMV_PARENT_OP
};

struct Mat_SeqAIJSpMV : SpMVOverlay {
  const SpMVFormatInfo *info = nullptr;
  SpMVFormat           *fmt  = nullptr;
  char                  visible[64]; /* the type name users see: seqaij<fmt>, or the parent's for MPI blocks */
  PetscBool             lend = PETSC_FALSE; /* every inherited operation lends the parent's name (debug PETSc) */
  bool                  parentnames = false; /* the product dispatch is composed under the parent's names */
  ParentOps             ops;                /* the parent's operations (re-captured after MatBindToCPU) */
  std::array<PetscErrorCode (*)(void), kNumComposed> composed{};

  Exec             exec          = kParent;
  PetscBool        productformat = PETSC_FALSE; /* products with this matrix as A (PtAP in GAMG) carry its format */
  PetscBool        built         = PETSC_FALSE; /* the format holds the current matrix */
  PetscBool        onhost        = PETSC_FALSE; /* ... built by the host reference */
  bool             ondevice      = false;       /* built on the GPU at least once: may hold device memory */
  PetscBool        nofit         = PETSC_FALSE; /* no GPU layout (out of device memory, or toolarge): the parent's product
                                                   until the nonzero pattern changes (Sync) */
  bool             toolarge      = false;       /* ... because the block overflows the layouts' 32-bit indices */
  PetscObjectState state = 0, nzstate = 0;
  const void      *data = nullptr;                /* the implementation data it was built from (MatHeaderMerge) */
  const int       *di = nullptr, *dj = nullptr;   /* the device CSR the format was built from */
  const PetscScalar *da = nullptr;
  int             *ni = nullptr, *nj = nullptr; /* 32-bit copies of the indices (64-bit PetscInt builds only) */
  PetscScalar     *dx = nullptr, *dy = nullptr; /* staging buffers for host vectors */
  PetscErrorCode Release() override;
};

Mat_SeqAIJSpMV *Ctx(Mat A)
{
  SpMVOverlay *o = SpMVGetOverlay(A);
  return o && !o->mpi ? static_cast<Mat_SeqAIJSpMV *>(o) : nullptr;
}

std::vector<const SpMVFormatInfo *> &Registry()
{
  static std::vector<const SpMVFormatInfo *> r;
  return r;
}

/* Lends the plugin matrices among the given ones the parent's type name until the end of the scope; nests
   (a matrix that already carries the parent's name is left alone). A product matrix brings its operands. */
class ParentNames {
  std::vector<std::pair<PetscObject, char *>> swapped; /* object, its own name */

  void One(Mat M)
  {
    SpMVOverlay *c;
    PetscBool    same;
    if (!M || !(c = SpMVGetOverlay(M)) || c->block) return;
    if (PetscStrcmp(((PetscObject)M)->type_name, c->parent, &same) || same) return;
    for (auto &s : swapped)
      if (s.first == (PetscObject)M) return;
    char *name;
    if (PetscStrallocpy(c->parent, &name)) return;
    swapped.push_back({(PetscObject)M, ((PetscObject)M)->type_name});
    ((PetscObject)M)->type_name = name;
  }

public:
  void Add(Mat M)
  {
    if (!M) return;
    One(M);
    if (M->product) {
      One(M->product->A);
      One(M->product->B);
      One(M->product->C);
    }
  }
  template <typename T>
  void Add(T)
  { /* not a matrix */
  }
  ~ParentNames()
  {
    for (auto it = swapped.rbegin(); it != swapped.rend(); ++it) {
      PetscObject o = it->first;
      (void)PetscFree(o->type_name); /* the lent name (or one the parent set meanwhile) */
      o->type_name = it->second;
    }
  }
};

/* ---- thunks that lend the name (debug PETSc, or -mat_spmv_lend_type_name) ---------------------------- */
/* the slot of operation M taken by the thunk T::Call: the parent's current entry becomes the saved one (c->ops) and
   the thunk takes its place; a null entry stays null; Release puts the parent's back */
template <typename T, typename F, F _MatOps::*M, F ParentOps::*P>
struct ThunkSlot {
  static void Capture(Mat A, Mat_SeqAIJSpMV *c)
  {
    auto &live = A->ops->*M;
    if (live == T::Call) return;
    c->ops.*P = live;
    if (live) live = T::Call;
  }
  static void Release(Mat A, Mat_SeqAIJSpMV *c)
  {
    auto &live = A->ops->*M;
    if (live == T::Call) live = c->ops.*P;
  }
};

template <typename F, F _MatOps::*M, F ParentOps::*P>
struct OpThunk;
template <typename... Args, PetscErrorCode (*_MatOps::*M)(Mat, Args...), PetscErrorCode (*ParentOps::*P)(Mat, Args...)>
struct OpThunk<PetscErrorCode (*)(Mat, Args...), M, P> : ThunkSlot<OpThunk<PetscErrorCode (*)(Mat, Args...), M, P>, PetscErrorCode (*)(Mat, Args...), M, P> {
  static PetscErrorCode Call(Mat A, Args... args)
  {
    Mat_SeqAIJSpMV *c = Ctx(A);

    PetscFunctionBegin;
    PetscCheck(c && (c->ops.*P), PETSC_COMM_SELF, PETSC_ERR_PLIB, "petsc-spmv: no parent operation behind this thunk");
    {
      ParentNames lend;
      lend.Add(A);
      (lend.Add(args), ...);
      PetscCall((c->ops.*P)(A, args...));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};
#define SPMV_OP(op) OpThunk<decltype(_MatOps::op), &_MatOps::op, &ParentOps::op>

template <typename... T>
struct OpList {
  static void Capture(Mat A, Mat_SeqAIJSpMV *c) { (T::Capture(A, c), ...); }
  static void Release(Mat A, Mat_SeqAIJSpMV *c) { (T::Release(A, c), ...); }
};
/* every operation of aijcusparse that reaches PetscCheckTypeName in a debug PETSc and that the overlay does not replace
   (the operations with vector arguments: VecOps, below, lend too) */
using LentOps = OpList<SPMV_OP(scale), SPMV_OP(shift), SPMV_OP(axpy), SPMV_OP(zeroentries), SPMV_OP(zerorows), SPMV_OP(zerorowscolumns), SPMV_OP(copy), SPMV_OP(getcurrentmemtype), SPMV_OP(assemblyend), SPMV_OP(setoption), SPMV_OP(setup)>;

/* composed functions: the same, keyed by their index in kComposedNames */
template <int K, typename F>
struct ComposedThunk;
template <int K, typename... Args>
struct ComposedThunk<K, PetscErrorCode (*)(Mat, Args...)> {
  using Fn = PetscErrorCode (*)(Mat, Args...);
  static PetscErrorCode Call(Mat A, Args... args)
  {
    Mat_SeqAIJSpMV *c = Ctx(A);

    PetscFunctionBegin;
    PetscCheck(c && c->composed[K], PETSC_COMM_SELF, PETSC_ERR_PLIB, "petsc-spmv: no parent function behind %s", kComposedNames[K]);
    {
      ParentNames lend;
      lend.Add(A);
      (lend.Add(args), ...);
      PetscCall(((Fn)c->composed[K])(A, args...));
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};
using ComposedFns = std::tuple<ComposedThunk<kSetPreallocationCOO, PetscErrorCode (*)(Mat, PetscCount, PetscInt[], PetscInt[])>, ComposedThunk<kSetValuesCOO, PetscErrorCode (*)(Mat, const PetscScalar[], InsertMode)>, ComposedThunk<kCopySubArray, PetscErrorCode (*)(Mat, PetscInt, const PetscInt[], PetscScalar[])>>;

/* The parent's entry (even a null one: the parent removed it) becomes the saved one, the thunk takes its place */
template <std::size_t... K>
PetscErrorCode CaptureComposed(Mat A, Mat_SeqAIJSpMV *c, std::index_sequence<K...>)
{
  using Fn                           = PetscErrorCode (*)(void);
  const Fn thunks[sizeof...(K)] = {(Fn)std::tuple_element_t<K, ComposedFns>::Call...};

  PetscFunctionBegin;
  for (std::size_t k = 0; k < sizeof...(K); k++) {
    Fn f = nullptr;
    PetscCall(PetscObjectQueryFunction((PetscObject)A, kComposedNames[k], &f));
    if (f == thunks[k]) continue;
    c->composed[k] = f;
    PetscCall(PetscObjectComposeFunction((PetscObject)A, kComposedNames[k], f ? thunks[k] : nullptr));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- products ------------------------------------------------------------------------------------------ */
PetscErrorCode Attach(Mat, const SpMVFormatInfo *, PetscBool, PetscBool);
PetscErrorCode ComposeParentDispatch(Mat, Mat_SeqAIJSpMV *);

/* The parent's symbolic and numeric phases behind the thunks, per product (C->product): PETSc's ABC_Basic
   runs an inner product's phases on the outer matrix with the inner C->product swapped in, so the product,
   not the matrix, identifies them. A product is re-dispatched (and so re-recorded here) before its phases run,
   except the one PETSc's shell of a converted matrix makes anew for its numeric phase (ProductNumeric_SpMV): an
   entry therefore counts only for the product that Owns it, never for a freed one at the same address. */
struct ProductPhases {
  PetscErrorCode (*symbolic)(Mat) = nullptr, (*numeric)(Mat) = nullptr;
  /* the product as its symbolic phase left it (ProductNumeric_SpMV finds a product by them that PETSc re-created) */
  const void    *data = nullptr;
  Mat            C = nullptr, A = nullptr, B = nullptr;
  MatProductType type = MATPRODUCT_UNSPECIFIED;
  bool           Same(Mat c, const Mat_Product *p) const { return p->data ? data == p->data : (C == c && A == p->A && B == p->B && type == p->type); }
  /* the entry of this very product, not of a freed one whose address a new product reuses (MatProductReplaceMats may
     have changed A and B since the symbolic phase, not C, the type or the data) */
  bool           Owns(Mat c, const Mat_Product *p) const { return C == c && type == p->type && data == p->data; }
};
std::unordered_map<const void *, ProductPhases> &Phases()
{
  static std::unordered_map<const void *, ProductPhases> m;
  return m;
}

/* PtAP, RARt and ABC of sequential cuSPARSE matrices on the GPU: aijcusparse composes them of two products
   (MatProductSymbolic_ABC_Basic), each dispatched anew inside the outer phases and holding its own operands. Those
   inner products must see the plugin operands under their own names, so that each comes through
   SpMVProductSetFromOptions and lends the names in its own phases. Lent around the composition, an inner product
   whose other operand is a genuine aijcusparse matrix (PCMG's coarse levels: a Galerkin operator times a plugin
   interpolation) found aijcusparse's own dispatch under the lent name and ran unwrapped: its reuse met the plugin's
   name, "Not for B of type seqaijspmv" (snes ex18 with Galerkin PCMG; ex20 with -pc_mg_adapt_interp_coarse_space,
   whose replaced interpolation the outer product lends but the inner ones still hold; session 36). Every operand a
   plugin matrix with that parent or a genuine aijcusparse one, none bound to the CPU, and not aijcusparse's own
   -matptap_backend_cpu and the like (else the parent takes SeqAIJ's code, or a dense operand's, which read the names:
   they are lent as before). */
bool ComposedByParent(Mat C)
{
  const Mat_Product *p      = C->product;
  PetscBool          usecpu = PETSC_FALSE;

  if (!p || (p->type != MATPRODUCT_PtAP && p->type != MATPRODUCT_RARt && p->type != MATPRODUCT_ABC)) return false;
  for (Mat X : {p->A, p->B, p->type == MATPRODUCT_ABC ? p->C : nullptr}) {
    if (!X) continue;
    SpMVOverlay *o = SpMVGetOverlay(X);
    PetscBool    cusp;
    if (X->boundtocpu || PetscStrcmp(o ? (o->block ? "" : o->parent) : ((PetscObject)X)->type_name, MATSEQAIJCUSPARSE, &cusp) || !cusp) return false;
  }
  const char *opt = !p->api_user ? "-mat_product_algorithm_backend_cpu" : p->type == MATPRODUCT_PtAP ? "-matptap_backend_cpu" : p->type == MATPRODUCT_RARt ? "-matrart_backend_cpu" : "-matmatmatmult_backend_cpu";
  return !PetscOptionsGetBool(((PetscObject)C)->options, ((PetscObject)C)->prefix, opt, &usecpu, nullptr) && !usecpu;
}

PetscErrorCode ProductNumeric_SpMV(Mat C)
{
  auto it = Phases().find(C->product);

  PetscFunctionBegin;
  /* PETSc's shell of a converted matrix (MatConvert(A, MATSHELL), shellcnv.c) runs the numeric phase on a new
     C->product made from the one whose symbolic phase ran (its data, or without data its C, A, B and type): found by
     them, which one live product has alone (ProductSymbolic_SpMV drops the entries of earlier products that match) */
  if (it == Phases().end() || !it->second.numeric || !it->second.Owns(C, C->product)) {
    it = Phases().end();
    for (auto j = Phases().begin(); j != Phases().end(); ++j)
      if (j->second.numeric && j->second.Same(C, C->product)) {
        it = j;
        break;
      }
  }
  PetscCheck(it != Phases().end() && it->second.numeric, PETSC_COMM_SELF, PETSC_ERR_PLIB, "petsc-spmv: lost the numeric phase of a product");
  {
    const auto  numeric = it->second.numeric; /* the phase may record nested products (and so rehash Phases()) */
    ParentNames lend;
    if (!ComposedByParent(C)) lend.Add(C);
    PetscCall(numeric(C));
    /* a numeric phase that puts itself back in C when it ends (MatProductNumeric_ABC_Basic does) stays wrapped: the
       next one (MAT_REUSE_MATRIX) runs as this one did */
    if (C->ops->productnumeric == numeric) C->ops->productnumeric = ProductNumeric_SpMV;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ProductSymbolic_SpMV(Mat C)
{
  const void *key = C->product;
  auto        it  = Phases().find(key);

  PetscFunctionBegin;
  PetscCheck(it != Phases().end() && it->second.symbolic, PETSC_COMM_SELF, PETSC_ERR_PLIB, "petsc-spmv: lost the symbolic phase of a product");
  {
    ParentNames lend;
    if (!ComposedByParent(C)) lend.Add(C);
    PetscCall(it->second.symbolic(C));
  }
  if (Mat_SeqAIJSpMV *ca = Ctx(C->product->A)) { /* -mat_spmv_product_format: the product carries A's format */
    PetscBool cusp;
    PetscCall(PetscObjectTypeCompare((PetscObject)C, MATSEQAIJCUSPARSE, &cusp));
    if (ca->productformat && cusp && !Ctx(C)) {
      PetscCall(Attach(C, ca->info, PETSC_FALSE, (PetscBool)(ca->exec == kHost)));
      Mat_SeqAIJSpMV *cc = Ctx(C);
      PetscCall(cc->fmt->CopyOptions(*ca->fmt));
      cc->productformat = PETSC_TRUE;
    }
  }
  if (C->ops->productnumeric && C->ops->productnumeric != ProductNumeric_SpMV) {
    for (auto j = Phases().begin(); j != Phases().end();) j = (j->first != key && j->second.Same(C, C->product)) ? Phases().erase(j) : std::next(j);
    ProductPhases &ph      = Phases()[key];
    ph.numeric             = C->ops->productnumeric;
    ph.data                = C->product->data;
    ph.C                   = C;
    ph.A                   = C->product->A;
    ph.B                   = C->product->B;
    ph.type                = C->product->type;
    C->ops->productnumeric = ProductNumeric_SpMV;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

/* The product dispatch of every plugin matrix: A->ops->productsetfromoptions, and composed under the names
   PETSc queries for mixed operand types. It repeats PETSc's own dispatch (MatProductSetFromOptions_Private:
   the operands' common dispatch, else the composed MatProductSetFromOptions_<A>_<B>[_<C>]_C, else _anytype_C),
   seen with the plugin operands under the parent's name and the parent's functions in place of the overlay's,
   so products of plugin types take aijcusparse's GPU code (and MAIJ's or dense's where those are the other
   operand); then it wraps the phases that dispatch chose. */
PetscErrorCode SpMVProductSetFromOptions(Mat C)
{
  Mat_Product *prod = C->product;
  Mat          A = prod->A, B = prod->B, M = prod->type == MATPRODUCT_ABC ? prod->C : nullptr;
  using Fn         = PetscErrorCode (*)(Mat);
  auto dispatch    = [](Mat X) -> Fn {
    SpMVOverlay *c = SpMVGetOverlay(X);
    return c && X->ops->productsetfromoptions == SpMVProductSetFromOptions ? c->productsetfromoptions : X->ops->productsetfromoptions;
  };
  /* a composed dispatch found on X: the parent's where it is the overlay's own */
  auto query = [](Mat X, const char *name, Fn *f) -> PetscErrorCode {
    PetscFunctionBegin;
    PetscCall(PetscObjectQueryFunction((PetscObject)X, name, f));
    if (*f == SpMVProductSetFromOptions) {
      SpMVOverlay *c = SpMVGetOverlay(X);
      PetscBool       anytype;
      PetscCall(PetscStrcmp(name, kProductNames[3], &anytype));
      *f = c && !anytype ? c->productsfo : nullptr;
    }
    PetscFunctionReturn(PETSC_SUCCESS);
  };
  /* the first operand that has the composed dispatch under this name: called */
  auto first = [&](const char *name) -> PetscErrorCode {
    Fn f = nullptr;

    PetscFunctionBegin;
    for (Mat X : {A, B, M})
      if (X && !f) PetscCall(query(X, name, &f));
    if (f) PetscCall(f(C));
    PetscFunctionReturn(PETSC_SUCCESS);
  };
  /* ... under MatProductSetFromOptions_<a>_<b>[_<m>]_C */
  auto named = [&](const char *a, const char *b, const char *m) -> PetscErrorCode {
    char name[256];

    PetscFunctionBegin;
    PetscCall(PetscSNPrintf(name, sizeof(name), "MatProductSetFromOptions_%s_%s%s%s_C", a, b, m ? "_" : "", m ? m : ""));
    PetscCall(first(name));
    PetscFunctionReturn(PETSC_SUCCESS);
  };
  const Fn fA = dispatch(A), fB = dispatch(B), fC = M ? dispatch(M) : fA;

  PetscFunctionBegin;
  for (Mat X : {A, B, M})
    if (Mat_SeqAIJSpMV *cx = X ? Ctx(X) : nullptr; cx && !cx->block) PetscCall(ComposeParentDispatch(X, cx));
  {
    ParentNames lend;
    lend.Add(C);
    if (fA && fA == fB && fA == fC) PetscCall(fA(C));
    if (!C->ops->productsymbolic) PetscCall(named(((PetscObject)A)->type_name, ((PetscObject)B)->type_name, M ? ((PetscObject)M)->type_name : nullptr));
    if (!C->ops->productsymbolic) PetscCall(first(kProductNames[3]));
    if (!C->ops->productsymbolic) { /* a GPU parent with a host operand (a DMDA's AIJ or MAIJ interpolation): what AIJ does */
      const char *base[3];
      int         k = 0;
      for (Mat X : {A, B, M}) {
        SpMVOverlay *o = X ? SpMVGetOverlay(X) : nullptr;
        base[k++]      = !X ? nullptr : o && !o->block ? (o->mpi ? MATMPIAIJ : MATSEQAIJ) : ((PetscObject)X)->type_name;
      }
      PetscCall(named(base[0], base[1], base[2]));
    }
    if (!C->ops->productsymbolic) { /* the other operands' common dispatch, ours taken as plain AIJ */
      bool common = true;
      Fn   f      = nullptr;
      for (Mat X : {A, B, M}) {
        SpMVOverlay *o = X ? SpMVGetOverlay(X) : nullptr;
        if (!X || (o && !o->block)) continue;
        if (f && f != X->ops->productsetfromoptions) common = false;
        f = X->ops->productsetfromoptions;
      }
      if (common && f && f != SpMVProductSetFromOptions) PetscCall(f(C));
    }
  }
  if (C->ops->productsymbolic && C->ops->productsymbolic != ProductSymbolic_SpMV) {
    Phases()[C->product]    = ProductPhases{C->ops->productsymbolic, nullptr};
    C->ops->productsymbolic = ProductSymbolic_SpMV;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace {
/* The dispatch under the parent's names too: PETSc queries them when the matrix is lent the parent's name (nested
   products in a product's phases, the lending thunks), and must find the overlay's dispatch there, not the parent's.
   Composed at the matrix' first product (SpMVProductSetFromOptions: every product of a plugin operand passes there
   first) rather than at its creation: most matrices never take part in a matrix-matrix product, and the query and
   three composes were a third of the overlay's creation cost on an aijcusparse parent. aijcusparse composes its three
   names together, with one function, SeqAIJ none of them: one query tells for all three. */
PetscErrorCode ComposeParentDispatch(Mat A, Mat_SeqAIJSpMV *c)
{
  PetscErrorCode (*f)(void) = nullptr;

  PetscFunctionBegin;
  if (c->parentnames) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectQueryFunction((PetscObject)A, kProductNames[0], &f));
  if (f != (PetscErrorCode (*)(void))SpMVProductSetFromOptions) c->productsfo = (PetscErrorCode (*)(Mat))f; /* none while bound to the CPU */
  if (f)
    for (int k = 0; k < 3; k++) PetscCall(PetscObjectComposeFunction((PetscObject)A, kProductNames[k], SpMVProductSetFromOptions));
  c->parentnames = true;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The entry of the product dispatch: _anytype_C, which PETSc queries on every operand of a product whose operands'
   dispatch operations differ (a plugin matrix and any other). One compose per matrix created. */
PetscErrorCode ComposeProductDispatch(Mat A, Mat_SeqAIJSpMV *c)
{
  PetscFunctionBegin;
  c->parentnames = false; /* the parent may have composed its own again (MatBindToCPU) */
  PetscCall(PetscObjectComposeFunction((PetscObject)A, kProductNames[3], SpMVProductSetFromOptions));
  if (c->lend) PetscCall(ComposeParentDispatch(A, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/* The overlay of a matrix (seq or MPI), in a container on its header: it follows the header through
   MatHeaderMerge and MatHeaderReplace and is freed with it */
static const char kOverlayName[] = "MatSpMVOverlay";

SpMVOverlay *SpMVGetOverlay(Mat A)
{
  SpMVOverlay *o = nullptr;
  if (!A || PetscObjectContainerQuery((PetscObject)A, kOverlayName, &o)) return nullptr;
  return o;
}

static PetscErrorCode DestroyOverlay(PetscCtxRt ptr)
{
  SpMVOverlay *o = *(SpMVOverlay **)ptr;

  PetscFunctionBegin;
  if (o) PetscCall(o->Release());
  delete o;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* o on A (a header that has one gets the new one), or none (nullptr: frees A's) */
PetscErrorCode SpMVComposeOverlay(Mat A, SpMVOverlay *o)
{
  PetscFunctionBegin;
  if (o) PetscCall(PetscObjectContainerCompose((PetscObject)A, kOverlayName, o, DestroyOverlay));
  else PetscCall(PetscObjectCompose((PetscObject)A, kOverlayName, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatConvert's general converter of a plugin matrix, sequential or MPI (its ops->convert: MatConvert reaches it when no
   converter is composed under the source's type name, and none is, which saves two composes per matrix created). To
   the parent family (aij, aijcusparse and their seq or mpi names, given) it calls toparent; to any other type it does
   what MatConvert does for a type without a converter (MatConvert_Basic, which PETSc does not export): MatConvert
   again, with this entry taken away for the call */
PetscErrorCode SpMVConvertGeneral(Mat A, MatType type, MatReuse reuse, Mat *B, MatType aij, MatType aijcusparse, PetscErrorCode (*toparent)(Mat, MatType, MatReuse, Mat *))
{
  PetscErrorCode (*self)(Mat, MatType, MatReuse, Mat *) = A->ops->convert;
  PetscBool      parent;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(PetscStrcmpAny(type, &parent, MATAIJ, MATAIJCUSPARSE, aij, aijcusparse, ""));
  if (parent) {
    PetscCall(toparent(A, type, reuse, B));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  A->ops->convert = nullptr;
  ierr            = MatConvert(A, type, reuse, B);
  if (reuse != MAT_INPLACE_MATRIX || ierr) A->ops->convert = self; /* in place, A is the new matrix now */
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

const SpMVFormatInfo *SpMVFindFormat(const char *name)
{
  for (auto *f : Registry()) {
    PetscBool a, b;
    if (PetscStrcmp(name, f->root, &a) || PetscStrcmp(name, f->seqname, &b)) return nullptr;
    if (a || b) return f;
  }
  return nullptr;
}

/* The options block of a petsc-spmv type (seq or mpi): its own block, as SeqAIJ does, because -help prints a
   (prefix, title) block once and "Matrix (Mat) options" was printed when the AIJ parent was created */
PetscErrorCode SpMVSetFromOptions(Mat A, const char *typename_, const SpMVFormatInfo *info, SpMVFormat *fmt, PetscBool *hostref, PetscBool *productformat)
{
  char title[256];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(title, sizeof(title), "Options for %s matrices (%s)", typename_, info->title));
  PetscOptionsBegin(PetscObjectComm((PetscObject)A), ((PetscObject)A)->prefix, title, "Mat");
  PetscCall(PetscOptionsBool("-mat_spmv_host_reference", "Run the format's host reference for the products (testing, debugging) instead of the GPU kernels, or, without a GPU, instead of the parent's SeqAIJ product", "MatSetType", *hostref, hostref, NULL));
  { /* read by the device memory pool (spmvdevice.cu), once per process, without a prefix: listed here for -help */
    PetscInt mb = 0;
    PetscCall(PetscOptionsInt("-mat_spmv_device_memory_max", "Device memory (MB) the library's formats may hold on a GPU (0: no cap; process-wide, read without the prefix when the first format is built there): a format that does not fit keeps the parent's product", "MatSetType", mb, &mb, NULL));
  }
  if (productformat) PetscCall(PetscOptionsBool("-mat_spmv_product_format", "Matrix products with this matrix as the first operand (MatPtAP in GAMG: the coarse operators) get its format instead of staying aijcusparse", "MatProductCreate", *productformat, productformat, NULL));
  PetscCall(fmt->SetFromOptions(PetscOptionsObject));
  PetscOptionsEnd();
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mat_spmv_host_reference from the options database (with the matrix's prefix), for matrices that never see
   MatSetFromOptions (those PETSc creates inside a preconditioner, the blocks of an MPI matrix) */
PetscBool SpMVHostReferenceDefault(Mat A)
{
  PetscBool v = PETSC_FALSE;
  if (PetscOptionsGetBool(((PetscObject)A)->options, ((PetscObject)A)->prefix, "-mat_spmv_host_reference", &v, NULL)) return PETSC_FALSE;
  return v;
}

/* Is there a device this process can use? (no driver, no device: the host reference runs) */
PetscBool SpMVHaveGPU(void)
{
  static int have = -1;
  if (have < 0) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();
      n = 0;
    }
    have = n > 0;
  }
  return have ? PETSC_TRUE : PETSC_FALSE;
}

namespace {
PetscBool OnGPUParent(Mat_SeqAIJSpMV *c)
{
  PetscBool cusp;
  return (PetscBool)(!PetscStrcmp(c->parent, MATSEQAIJCUSPARSE, &cusp) && cusp);
}


/* The host CSR, current (the parent copies newer device values back) */
PetscErrorCode HostCsr(Mat A, SpMVHostCsr *h)
{
  Mat_SeqAIJ        *a = (Mat_SeqAIJ *)A->data;
  const PetscScalar *v;

  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetArrayRead(A, &v));
  h->m   = A->rmap->n;
  h->n   = A->cmap->n;
  h->nnz = A->rmap->n ? a->i[A->rmap->n] : 0;
  h->i   = a->i;
  h->j   = a->j;
  h->a   = v;
  PetscCall(MatSeqAIJRestoreArrayRead(A, &v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

__global__ void Narrow(PetscInt n, const PetscInt *__restrict__ in, int *__restrict__ out)
{
  for (PetscInt k = blockIdx.x * (PetscInt)blockDim.x + threadIdx.x; k < n; k += (PetscInt)gridDim.x * blockDim.x) out[k] = (int)in[k];
}

PetscErrorCode FreeDevice(Mat_SeqAIJSpMV *c)
{
  PetscFunctionBegin;
  PetscCall(spmv::DeviceFree({c->ni, c->nj, c->dx, c->dy}));
  c->ni = c->nj = nullptr;
  c->dx = c->dy = nullptr;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* what the overlay holds: the format (its device memory), the 32-bit indices and staging buffers */
PetscErrorCode Mat_SeqAIJSpMV::Release()
{
  const bool held = ondevice || dx; /* a matrix destroyed before its first product makes no driver call */

  PetscFunctionBegin;
  PetscCall(fmt->ReleaseDevice()); /* frees only what was allocated: nothing without a GPU */
  delete fmt;
  fmt = nullptr;
  PetscCall(FreeDevice(this));
  if (held) PetscCall(spmv::TrimPool()); /* what they held goes back to the driver */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the error handler around a format's GPU build: out of memory (PETSC_ERR_MEM, spmv::DeviceAlloc) and a layout's 32-bit
   index overflow (PETSC_ERR_INT_OVERFLOW, the formats' build checks) pass silently, the caller keeps the parent's product;
   any other error is reported as PETSc's default handler reports it */
PetscErrorCode QuietNoLayout(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  if (n == PETSC_ERR_MEM || n == PETSC_ERR_INT_OVERFLOW) return n;
  return PetscTraceBackErrorHandler(comm, line, fun, file, n, p, mess, ctx);
}

/* The format's GPU build from the parent's device CSR (i, j: PetscInt; narrowed into c->ni, c->nj in a 64-bit-index build) */
PetscErrorCode NarrowAndBuild(Mat_SeqAIJSpMV *c, SpMVDeviceCsr &d, const PetscInt *i, const PetscInt *j, cudaStream_t s)
{
  PetscFunctionBegin;
  if (sizeof(PetscInt) == sizeof(int)) {
    d.i = (const int *)i;
    d.j = (const int *)j;
  } else {
    PetscCall(spmv::DeviceFree({c->ni, c->nj}));
    c->ni = c->nj = nullptr;
    PetscCall(spmv::DeviceAlloc(&c->ni, d.m + 1, nullptr, s));
    PetscCall(spmv::DeviceAlloc(&c->nj, d.nnz, nullptr, s));
    Narrow<<<spmv::GridFor(d.m + 1, 256, 4096), 256, 0, s>>>(d.m + 1, i, c->ni);
    Narrow<<<spmv::GridFor(d.nnz, 256, 4096), 256, 0, s>>>(d.nnz, j, c->nj);
    SpMVCheckLaunch();
    d.i = c->ni;
    d.j = c->nj;
  }
  PetscCall(c->fmt->BuildDevice(d, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A new layout on the GPU, or none (c->nofit: the products are the parent's, as aijcusparse's, until the next pattern)
   when it does not fit in device memory or the block overflows the layout's 32-bit indices (2^31 or more rows, columns
   or nonzeros on a rank, which aijcusparse runs with 64-bit PetscInt, or a layout's own count near that): a matrix
   that runs on aijcusparse never fails for want of ours */
PetscErrorCode BuildDeviceOrNone(Mat A, Mat_SeqAIJSpMV *c, SpMVDeviceCsr &d, const PetscInt *i, const PetscInt *j, cudaStream_t s)
{
  PetscErrorCode   ierr = PETSC_SUCCESS;
  spmv::BuildScope scope; /* what a failed build still holds */

  PetscFunctionBegin;
  c->toolarge = !(d.m < PETSC_INT32_MAX && d.n < PETSC_INT32_MAX && d.nnz < PETSC_INT32_MAX);
  if (!c->toolarge) {
    PetscCall(PetscPushErrorHandler(QuietNoLayout, nullptr));
    ierr = NarrowAndBuild(c, d, i, j, s);
    PetscCall(PetscPopErrorHandler());
  }
  c->toolarge = c->toolarge || ierr == PETSC_ERR_INT_OVERFLOW;
  c->nofit    = (PetscBool)(c->toolarge || ierr == PETSC_ERR_MEM);
  if (c->nofit) { /* the layout, the 32-bit indices, then the build's temporaries: back to the pool (Sync trims it) */
    PetscCall(c->fmt->ReleaseDevice());
    PetscCall(spmv::DeviceFree({c->ni, c->nj}, s));
    c->ni = c->nj = nullptr;
    PetscCall(scope.FreeLeftovers(s));
    if (c->toolarge) PetscCall(PetscInfo(A, "%s: %" PetscInt_FMT " x %" PetscInt_FMT " with %" PetscInt_FMT " nonzeros overflows the format's 32-bit indices; the products are the parent's until the nonzero pattern changes\n", c->info->seqname, d.m, d.n, d.nnz));
    else PetscCall(PetscInfo(A, "%s: the format does not fit in device memory (-mat_spmv_device_memory_max); the products are the parent's until the nonzero pattern changes\n", c->info->seqname));
  } else PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bring the format up to date with the matrix: build (new pattern) or refresh (new values). On the GPU the
   format reads the parent's device CSR (the parent uploads it first when the host is newer); aijcusparse
   keeps PetscInt indices, narrowed into 32-bit copies once per pattern in a 64-bit-index build. */
PetscErrorCode Sync(Mat A, Mat_SeqAIJSpMV *c, PetscBool onhost)
{
  PetscObjectState state;
  PetscBool        rebuild;

  PetscFunctionBegin;
  PetscCall(PetscObjectStateGet((PetscObject)A, &state));
  const PetscBool due = (PetscBool)(!onhost && c->built && !c->nofit && c->fmt->Due()); /* the format asks to be built again (spmv's selection) */
  if (c->built && c->onhost == onhost && state == c->state && A->data == c->data && !due) PetscFunctionReturn(PETSC_SUCCESS);
  if (onhost) {
    SpMVHostCsr h;
    PetscCall(HostCsr(A, &h));
    rebuild = (PetscBool)(!c->built || !c->onhost || A->nonzerostate != c->nzstate || A->data != c->data);
    PetscCall(PetscLogEventBegin(rebuild ? MAT_SpMV_Build : MAT_SpMV_Refresh, A, 0, 0, 0));
    if (rebuild) PetscCall(c->fmt->BuildHost(h));
    else PetscCall(c->fmt->RefreshHost(h));
    PetscCall(PetscLogEventEnd(rebuild ? MAT_SpMV_Build : MAT_SpMV_Refresh, A, 0, 0, 0));
  } else {
    cudaStream_t       s;
    const PetscInt    *i, *j;
    const PetscScalar *v;
    SpMVDeviceCsr      d;
    const PetscInt     m = A->rmap->n, nnz = ((Mat_SeqAIJ *)A->data)->nz;

    PetscCall(PetscGetCurrentCUDAStream(&s));
    PetscCall(MatSpMVSeqDeviceCsr(A, PETSC_FALSE, &i, &j, &v));
    rebuild = (PetscBool)(!c->built || c->onhost || due || A->nonzerostate != c->nzstate || A->data != c->data || (const void *)i != (const void *)c->di || (const void *)j != (const void *)c->dj);
    d.m   = m;
    d.n   = A->cmap->n;
    d.nnz = nnz;
    d.a   = v;
    d.i   = sizeof(PetscInt) == sizeof(int) ? (const int *)i : c->ni;
    d.j   = sizeof(PetscInt) == sizeof(int) ? (const int *)j : c->nj;
    PetscCall(PetscLogEventBegin(rebuild ? MAT_SpMV_Build : MAT_SpMV_Refresh, A, 0, 0, 0));
    if (rebuild) PetscCall(BuildDeviceOrNone(A, c, d, i, j, s));
    else if (!c->nofit) PetscCall(c->fmt->RefreshDevice(d, s));
    PetscCallCUDA(cudaStreamSynchronize(s)); /* once per (re)assembly: honest event times, errors surface here */
    if (rebuild) PetscCall(spmv::TrimPool()); /* the build's temporaries (and a selection's losers) go back to the driver */
    PetscCall(PetscLogEventEnd(rebuild ? MAT_SpMV_Build : MAT_SpMV_Refresh, A, 0, 0, 0));
    c->di = (const int *)i;
    c->dj = (const int *)j;
    c->da = v;
    c->ondevice = true;
    PetscCall(MatSpMVSeqDeviceCsr(A, PETSC_TRUE, &i, &j, &v));
  }
  if (onhost) c->nofit = PETSC_FALSE;
  if (rebuild && !c->nofit) PetscCall(PetscInfo(A, "%s: built the format %s (%" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " nonzeros)\n", c->info->seqname, onhost ? "on the host" : "on the GPU from the parent's device CSR", A->rmap->n, A->cmap->n, ((Mat_SeqAIJ *)A->data)->nz));
  c->built   = PETSC_TRUE;
  c->onhost  = onhost;
  c->state   = state;
  c->nzstate = A->nonzerostate;
  c->data    = A->data;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* an operation of the parent, called by the overlay's own (the product when bound to the CPU or without a GPU,
   options, view, bind): the parent's name lent where every inherited operation lends it */
template <typename... Args>
PetscErrorCode CallParent(Mat A, Mat_SeqAIJSpMV *c, PetscErrorCode (*f)(Mat, Args...), Args... args)
{
  PetscFunctionBegin;
  if (c->lend) {
    ParentNames lend;
    lend.Add(A);
    PetscCall(f(A, args...));
  } else PetscCall(f(A, args...));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a CUDA vector (aijcusparse's product takes no other: in an optimized PETSc it reads a host vector's pointer as a
   device one, unchecked) */
bool CUDAVec(Vec v)
{
  const char *t = ((PetscObject)v)->type_name; /* PetscObjectTypeCompareAny's test, without its variadic loop: on every product */
  return t && (!strcmp(t, VECSEQCUDA) || !strcmp(t, VECMPICUDA));
}

/* the values of a host vector into a CUDA one or back, in the CUDA vector's device memory (a staged vector then holds its
   values on the device, as the program's CUDA vectors do: aijcusparse's u + A^T y into another vector gave wrong sums
   for a staged u whose values were on the host side of its CUDA vector, test_matops on the H100), ordered on PETSc's
   stream */
PetscErrorCode CopyValues(Vec from, Vec to)
{
  const PetscScalar *a;
  PetscScalar       *b;
  PetscMemType       ma, mb;
  PetscInt           n;
  cudaStream_t       s;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(from, &n));
  PetscCall(PetscGetCurrentCUDAStream(&s));
  PetscCall(VecGetArrayReadAndMemType(from, &a, &ma));
  PetscCall(VecGetArrayWriteAndMemType(to, &b, &mb));
  PetscCallCUDA(cudaMemcpyAsync(b, a, n * sizeof(PetscScalar), cudaMemcpyDefault, s));
  PetscCallCUDA(cudaStreamSynchronize(s));
  if (PetscMemTypeDevice(ma) && !PetscMemTypeDevice(mb)) PetscCall(PetscLogGpuToCpu(n * sizeof(PetscScalar)));
  else if (!PetscMemTypeDevice(ma) && PetscMemTypeDevice(mb)) PetscCall(PetscLogCpuToGpu(n * sizeof(PetscScalar)));
  PetscCall(VecRestoreArrayWriteAndMemType(to, &b));
  PetscCall(VecRestoreArrayReadAndMemType(from, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Host vectors among an operation's arguments, staged through CUDA copies: the parent's GPU operations take no other
   vectors (in an optimized PETSc aijcusparse reads a host vector's pointer as a device one, unchecked: wrong answers, no
   error). Stage() gives the vector to pass (a CUDA copy of a host vector, made once per vector, with its values);
   Finish() copies back the copies the operation wrote (their state changed: the outputs) and frees them. */
struct Staging {
  static constexpr int n = 4;
  Vec                  h[n] = {}, d[n] = {};
  PetscObjectState     st[n] = {};
  int                  k = 0;

  PetscErrorCode Stage(Vec v, Vec *out)
  {
    PetscInt m;

    PetscFunctionBegin;
    *out = v;
    if (!v || CUDAVec(v)) PetscFunctionReturn(PETSC_SUCCESS);
    for (int q = 0; q < k; q++)
      if (h[q] == v) { /* the same vector twice (z = y + A^T x in place) */
        *out = d[q];
        PetscFunctionReturn(PETSC_SUCCESS);
      }
    PetscCheck(k < n, PETSC_COMM_SELF, PETSC_ERR_PLIB, "petsc-spmv: more than %d host vectors to stage", n);
    if (!k) PetscCall(PetscInfo(NULL, "petsc-spmv: host vectors staged through CUDA vectors for a GPU operation of the parent\n"));
    PetscCall(VecGetLocalSize(v, &m));
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, m, &d[k]));
    PetscCall(CopyValues(v, d[k]));
    PetscCall(PetscObjectStateGet((PetscObject)d[k], &st[k]));
    h[k] = v;
    *out = d[k++];
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  template <typename T>
  PetscErrorCode Stage(T a, T *out)
  {
    *out = a;
    return PETSC_SUCCESS;
  }
  PetscErrorCode Finish()
  {
    PetscFunctionBegin;
    for (int q = 0; q < k; q++) {
      PetscObjectState now;
      PetscCall(PetscObjectStateGet((PetscObject)d[q], &now));
      if (now != st[q]) PetscCall(CopyValues(d[q], h[q]));
      PetscCall(VecDestroy(&d[q]));
    }
    k = 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  ~Staging()
  { /* an error between Stage and Finish */
    for (int q = 0; q < k; q++) (void)VecDestroy(&d[q]);
  }
};

/* op(args...) with host vectors staged */
template <typename Op, typename... Args>
PetscErrorCode OnCUDAVectors(Op op, Args... args)
{
  Staging             stage;
  std::tuple<Args...> staged;

  PetscFunctionBegin;
  PetscCall(std::apply([&](auto &...w) { PetscErrorCode e = PETSC_SUCCESS; ((e = e ? e : stage.Stage(args, &w)), ...); return e; }, staged));
  PetscCall(std::apply(op, staged));
  PetscCall(stage.Finish());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the parent's f(A, args...) with host vectors staged */
template <typename... Args>
PetscErrorCode ParentOnCUDAVectors(Mat A, Mat_SeqAIJSpMV *c, PetscErrorCode (*f)(Mat, Args...), Args... args)
{
  return OnCUDAVectors([&](Args... w) { return CallParent(A, c, f, w...); }, args...);
}

/* z = y (y given) or z = 0, on this process' entries only, host or device alike. Not VecCopy/VecSet: those are
   collective (they set the cached norms of z, VecSet from the global size), and a block of an MPI matrix gets the MPI
   vectors (MatMult_MPIAIJ hands them to its diagonal block) on one process alone: a process whose block takes this path
   while another's does not would keep a cached norm the others drop, and the next VecNorm skips the reduction there
   (wrong norm on that process, a hang or mixed-up reductions on the others). */
PetscErrorCode LocalCopyOrZero(Vec y, Vec z)
{
  const PetscScalar *ya = nullptr;
  PetscScalar       *za;
  PetscMemType       my = PETSC_MEMTYPE_HOST, mz;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(z, &n));
  if (y) PetscCall(VecGetArrayReadAndMemType(y, &ya, &my));
  PetscCall(VecGetArrayWriteAndMemType(z, &za, &mz));
  if (PetscMemTypeDevice(my) || PetscMemTypeDevice(mz)) {
    cudaStream_t s;
    PetscCall(PetscGetCurrentCUDAStream(&s));
    if (y) PetscCallCUDA(cudaMemcpyAsync(za, ya, n * sizeof(PetscScalar), cudaMemcpyDefault, s));
    else PetscCallCUDA(cudaMemsetAsync(za, 0, n * sizeof(PetscScalar), s));
    if (!PetscMemTypeDevice(my) || !PetscMemTypeDevice(mz)) PetscCallCUDA(cudaStreamSynchronize(s)); /* a host side */
  } else if (y) PetscCall(PetscArraycpy(za, ya, n));
  else PetscCall(PetscArrayzero(za, n));
  PetscCall(VecRestoreArrayWriteAndMemType(z, &za));
  if (y) PetscCall(VecRestoreArrayReadAndMemType(y, &ya));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* z = A x (+ y when y is given). The one product routine behind MatMult and MatMultAdd. */
PetscErrorCode MultAddImpl(Mat A, Mat_SeqAIJSpMV *c, Vec x, Vec y, Vec z)
{
  Mat_SeqAIJ     *a   = (Mat_SeqAIJ *)A->data;
  const PetscInt  nnz = a->nz;
  const bool      add = y != nullptr;

  PetscFunctionBegin;
  if (nnz == 0) { /* nothing to multiply: z = 0 or z = y */
    if (!add || y != z) PetscCall(LocalCopyOrZero(add ? y : nullptr, z));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(Sync(A, c, (PetscBool)(c->exec == kHost)));
  if (c->exec == kDevice && c->nofit) { /* no layout (out of device memory): the parent's product, host vectors staged */
    if (add) PetscCall(ParentOnCUDAVectors(A, c, c->ops.multadd, x, y, z));
    else PetscCall(ParentOnCUDAVectors(A, c, c->ops.mult, x, z));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (c->exec == kDevice && c->fmt->ParentProduct() && CUDAVec(x) && CUDAVec(z) && (!add || CUDAVec(y))) { /* the format hands the product back (spmv chose cuSPARSE's, or waits) */
    PetscCall(c->fmt->ParentProductRan(false));
    if (add) PetscCall(CallParent(A, c, c->ops.multadd, x, y, z));
    else PetscCall(CallParent(A, c, c->ops.mult, x, z));
    PetscCall(c->fmt->ParentProductRan(true));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (add && y != z) PetscCall(LocalCopyOrZero(y, z));
  if (c->exec == kHost) {
    const PetscScalar *xa;
    PetscScalar       *za;
    PetscCall(VecGetArrayRead(x, &xa));
    if (add) PetscCall(VecGetArray(z, &za));
    else PetscCall(VecGetArrayWrite(z, &za));
    PetscCall(c->fmt->MultHost(xa, za, add));
    PetscCall(VecRestoreArrayRead(x, &xa));
    if (add) PetscCall(VecRestoreArray(z, &za));
    else PetscCall(VecRestoreArrayWrite(z, &za));
    PetscCall(PetscLogFlops(add ? 2.0 * nnz : 2.0 * nnz - a->nonzerorowcnt));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  cudaStream_t       s;
  const PetscScalar *xa;
  PetscScalar       *za;
  PetscMemType       mx, mz;
  PetscCall(PetscGetCurrentCUDAStream(&s));
  PetscCall(VecGetArrayReadAndMemType(x, &xa, &mx));
  if (add) PetscCall(VecGetArrayAndMemType(z, &za, &mz));
  else PetscCall(VecGetArrayWriteAndMemType(z, &za, &mz));
  const PetscScalar *dxa = xa;
  PetscScalar       *dza = za;
  if (!PetscMemTypeDevice(mx) || !PetscMemTypeDevice(mz)) { /* host vectors: staged through device buffers (prefer CUDA vectors) */
    if (!c->dx) {
      PetscCall(spmv::DeviceAlloc(&c->dx, A->cmap->n, nullptr));
      PetscCall(spmv::DeviceAlloc(&c->dy, A->rmap->n, nullptr));
    }
    if (!PetscMemTypeDevice(mx)) {
      PetscCallCUDA(cudaMemcpyAsync(c->dx, xa, A->cmap->n * sizeof(PetscScalar), cudaMemcpyHostToDevice, s));
      PetscCall(PetscLogCpuToGpu(A->cmap->n * sizeof(PetscScalar)));
      dxa = c->dx;
    }
    if (!PetscMemTypeDevice(mz)) {
      if (add) PetscCallCUDA(cudaMemcpyAsync(c->dy, za, A->rmap->n * sizeof(PetscScalar), cudaMemcpyHostToDevice, s));
      dza = c->dy;
    }
  }
  PetscCall(PetscLogGpuTimeBegin());
  PetscCall(c->fmt->MultDevice(dxa, dza, add, s));
  PetscCall(PetscLogGpuTimeEnd());
  if (!PetscMemTypeDevice(mz)) {
    PetscCallCUDA(cudaMemcpyAsync(za, dza, A->rmap->n * sizeof(PetscScalar), cudaMemcpyDeviceToHost, s));
    PetscCallCUDA(cudaStreamSynchronize(s));
    PetscCall(PetscLogGpuToCpu(A->rmap->n * sizeof(PetscScalar)));
  }
  PetscCall(VecRestoreArrayReadAndMemType(x, &xa));
  if (add) PetscCall(VecRestoreArrayAndMemType(z, &za));
  else PetscCall(VecRestoreArrayWriteAndMemType(z, &za));
  PetscCall(PetscLogGpuFlops(add ? 2.0 * nnz : 2.0 * nnz - a->nonzerorowcnt));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- the operations the overlay replaces ------------------------------------------------------------- */
PetscErrorCode MatMult_SeqAIJSpMV(Mat A, Vec x, Vec y)
{
  Mat_SeqAIJSpMV *c = Ctx(A);

  PetscFunctionBegin;
  if (A->boundtocpu || c->exec == kParent) PetscCall(CallParent(A, c, c->ops.mult, x, y));
  else PetscCall(MultAddImpl(A, c, x, nullptr, y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatMultAdd_SeqAIJSpMV(Mat A, Vec x, Vec y, Vec z)
{
  Mat_SeqAIJSpMV *c = Ctx(A);

  PetscFunctionBegin;
  if (A->boundtocpu || c->exec == kParent) PetscCall(CallParent(A, c, c->ops.multadd, x, y, z));
  else PetscCall(MultAddImpl(A, c, x, y, z));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the parent's operations with vector arguments that the overlay does not replace (the transposed products, the
   diagonal's): on a GPU parent, host vectors staged (OnCUDAVectors); the parent's name lent where every inherited
   operation lends it. */
template <typename F, F _MatOps::*M, F ParentOps::*P>
struct VecOpThunk;
template <typename... Args, PetscErrorCode (*_MatOps::*M)(Mat, Args...), PetscErrorCode (*ParentOps::*P)(Mat, Args...)>
struct VecOpThunk<PetscErrorCode (*)(Mat, Args...), M, P> : ThunkSlot<VecOpThunk<PetscErrorCode (*)(Mat, Args...), M, P>, PetscErrorCode (*)(Mat, Args...), M, P> {
  static PetscErrorCode Call(Mat A, Args... args)
  {
    Mat_SeqAIJSpMV *c = Ctx(A);

    PetscFunctionBegin;
    PetscCheck(c && (c->ops.*P), PETSC_COMM_SELF, PETSC_ERR_PLIB, "petsc-spmv: no parent operation behind this thunk");
    if (OnGPUParent(c) && !A->boundtocpu) PetscCall(ParentOnCUDAVectors(A, c, c->ops.*P, args...));
    else PetscCall(CallParent(A, c, c->ops.*P, args...));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};
#define SPMV_VECOP(op) VecOpThunk<decltype(_MatOps::op), &_MatOps::op, &ParentOps::op>
using VecOps = OpList<SPMV_VECOP(multtranspose), SPMV_VECOP(multtransposeadd), SPMV_VECOP(multhermitiantranspose), SPMV_VECOP(multhermitiantransposeadd), SPMV_VECOP(getdiagonal), SPMV_VECOP(diagonalscale), SPMV_VECOP(diagonalset), SPMV_VECOP(getrowmaxabs)>;

PetscErrorCode Capture(Mat A, Mat_SeqAIJSpMV *c);

/* Who runs the products: the format on the GPU (an aijcusparse parent), its host reference when asked for,
   else the parent (SeqAIJ, no GPU) */
void SetExec(Mat_SeqAIJSpMV *c, PetscBool hostref)
{
  c->exec  = hostref ? kHost : (OnGPUParent(c) ? kDevice : kParent);
  c->built = PETSC_FALSE; /* rebuilt on the chosen side at the next product */
}

/* The parent swaps its operations (host or device ones): capture them again */
PetscErrorCode MatBindToCPU_SeqAIJSpMV(Mat A, PetscBool flg)
{
  Mat_SeqAIJSpMV *c = Ctx(A);

  PetscFunctionBegin;
  if (c->ops.bindtocpu) PetscCall(CallParent(A, c, c->ops.bindtocpu, flg));
  /* nothing writes the device copy while bound, but the host copy may have changed without the parent
     noticing (its SeqAIJ array operations are unset while bound): the host copy is the current one */
  if (!flg && c->exec == kDevice && A->offloadmask == PETSC_OFFLOAD_BOTH) A->offloadmask = PETSC_OFFLOAD_CPU;
  PetscCall(Capture(A, c));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatSetFromOptions_SeqAIJSpMV(Mat A, PetscOptionItems PetscOptionsObjectParent)
{
  Mat_SeqAIJSpMV *c       = Ctx(A);
  PetscBool       hostref = (PetscBool)(c->exec == kHost);

  PetscFunctionBegin;
  if (c->ops.setfromoptions) PetscCall(CallParent(A, c, c->ops.setfromoptions, PetscOptionsObjectParent));
  PetscCall(SpMVSetFromOptions(A, c->visible, c->info, c->fmt, &hostref, &c->productformat));
  SetExec(c, hostref); /* options may change the layout, or the side */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatView_SeqAIJSpMV(Mat A, PetscViewer viewer)
{
  Mat_SeqAIJSpMV   *c = Ctx(A);
  PetscBool         ascii;
  PetscViewerFormat format;
  const char       *by[] = {"by the parent's SeqAIJ kernel (no GPU; -mat_spmv_host_reference runs the format's host reference)", "by the format's host reference", "on the GPU"};

  PetscFunctionBegin;
  if (c->ops.view) PetscCall(CallParent(A, c, c->ops.view, viewer));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerGetFormat(viewer, &format));
  if (format != PETSC_VIEWER_ASCII_INFO && format != PETSC_VIEWER_ASCII_INFO_DETAIL) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "%s (%s) on a %s parent, products %s\n", c->info->seqname, c->info->title, c->parent, A->boundtocpu ? "bound to the CPU (parent CSR)" : by[c->exec]));
  /* bound to the CPU (DMDA's DMCreateMatrix binds around its first assembly, where -mat_view runs): the parent's products,
     and a GPU parent may not upload its CSR now */
  if (!A->assembled || !((Mat_SeqAIJ *)A->data)->nz || c->exec == kParent || A->boundtocpu) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(Sync(A, c, (PetscBool)(c->exec == kHost)));
  if (c->exec == kDevice && c->nofit) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "%s: products by the parent until the nonzero pattern changes\n", c->toolarge ? "the block overflows the format's 32-bit indices" : "the format did not fit in device memory (-mat_spmv_device_memory_max)"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(c->fmt->View(viewer));
  if (c->exec == kDevice) PetscCall(PetscViewerASCIIPrintf(viewer, "device memory: format %.3g MB, besides the parent's CSR %.3g MB\n", (double)c->fmt->DeviceBytes() / 1e6, (double)(((Mat_SeqAIJ *)A->data)->nz * (sizeof(PetscInt) + sizeof(PetscScalar)) + (A->rmap->n + 1) * sizeof(PetscInt)) / 1e6));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The parent duplicates under its own name (a plain parent matrix comes out: SeqAIJ creates the copy with the
   source's type name), then the copy gets the overlay */
PetscErrorCode MatDuplicate_SeqAIJSpMV(Mat A, MatDuplicateOption op, Mat *B)
{
  Mat_SeqAIJSpMV *c = Ctx(A);

  PetscFunctionBegin;
  {
    ParentNames lend;
    lend.Add(A);
    PetscCall(c->ops.duplicate(A, op, B));
  }
  PetscCall(Attach(*B, c->info, c->block, (PetscBool)(c->exec == kHost)));
  Mat_SeqAIJSpMV *cb = Ctx(*B);
  PetscCall(cb->fmt->CopyOptions(*c->fmt));
  cb->productformat = c->productformat;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the operations replaced by the overlay's own; the parent's are kept in c->ops */
template <typename T, T _MatOps::*M, T ParentOps::*P, T F>
struct Replace {
  static void Capture(Mat A, Mat_SeqAIJSpMV *c)
  {
    auto &live = A->ops->*M;
    if (live == F) return;
    c->ops.*P = live;
    live      = F;
  }
  static void Release(Mat A, Mat_SeqAIJSpMV *c)
  {
    auto &live = A->ops->*M;
    if (live == F) live = c->ops.*P;
  }
};
#define SPMV_REPLACE(op, fn) Replace<decltype(_MatOps::op), &_MatOps::op, &ParentOps::op, fn>
using ReplacedOps = OpList<SPMV_REPLACE(mult, MatMult_SeqAIJSpMV), SPMV_REPLACE(multadd, MatMultAdd_SeqAIJSpMV), SPMV_REPLACE(bindtocpu, MatBindToCPU_SeqAIJSpMV), SPMV_REPLACE(setfromoptions, MatSetFromOptions_SeqAIJSpMV), SPMV_REPLACE(view, MatView_SeqAIJSpMV), SPMV_REPLACE(duplicate, MatDuplicate_SeqAIJSpMV)>;
PetscErrorCode MatConvert_Parent_SeqAIJSpMV(Mat, MatType, MatReuse, Mat *);
/* only where the name differs from the parent's (not on MPI blocks) */
PetscErrorCode MatConvert_General_SeqAIJSpMV(Mat, MatType, MatReuse, Mat *);
using VisibleOps = OpList<SPMV_REPLACE(productsetfromoptions, SpMVProductSetFromOptions), SPMV_REPLACE(convertfrom, MatConvert_Parent_SeqAIJSpMV), SPMV_REPLACE(convert, MatConvert_General_SeqAIJSpMV)>;

PetscErrorCode Capture(Mat A, Mat_SeqAIJSpMV *c)
{
  PetscFunctionBegin;
  ReplacedOps::Capture(A, c);
  VecOps::Capture(A, c);
  if (c->block) PetscFunctionReturn(PETSC_SUCCESS);
  VisibleOps::Capture(A, c);
  c->productsetfromoptions = c->ops.productsetfromoptions;
  PetscCall(ComposeProductDispatch(A, c));
  if (c->lend) {
    LentOps::Capture(A, c);
    PetscCall(CaptureComposed(A, c, std::make_index_sequence<kNumComposed>{}));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

/* A new AIJ matrix (seq or MPI) from a plugin matrix on a GPU parent. aijcusparse's own MatConvert to AIJ is PETSc's
   basic converter: a MatGetRow and a MatSetValues a row into a matrix with no preallocation, 0.9 s a million rows on
   the H100's host (bench_assembly convert_to_aij). The same rows into an exactly preallocated matrix (the row lengths of
   the host CSR, or of the MPI matrix' diagonal and off-diagonal blocks) make the same matrix, with the basic
   converter's options (new nonzeros may still be inserted). MatGetRow copies newer device values back first. */
PetscErrorCode SpMVConvertToAIJ(Mat A, MatType type, Mat *B)
{
  Mat       C, Ad = A, Ao = nullptr;
  PetscInt  m = A->rmap->n, rstart, *dnnz, *onnz;
  PetscBool mpi;

  PetscFunctionBegin;
  PetscCall(PetscStrbeginswith(((PetscObject)A)->type_name, MATMPIAIJ, &mpi)); /* mpiaij, mpiaijcusparse, ours */
  if (mpi) PetscCall(MatMPIAIJGetSeqAIJ(A, &Ad, &Ao, nullptr));
  PetscCall(PetscMalloc2(m, &dnnz, m, &onnz));
  for (PetscInt r = 0; r < m; r++) {
    dnnz[r] = ((Mat_SeqAIJ *)Ad->data)->i[r + 1] - ((Mat_SeqAIJ *)Ad->data)->i[r];
    onnz[r] = Ao ? ((Mat_SeqAIJ *)Ao->data)->i[r + 1] - ((Mat_SeqAIJ *)Ao->data)->i[r] : 0;
  }
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &C));
  PetscCall(MatSetSizes(C, A->rmap->n, A->cmap->n, A->rmap->N, A->cmap->N));
  PetscCall(MatSetBlockSizesFromMats(C, A, A));
  PetscCall(MatSetType(C, type));
  PetscCall(MatXAIJSetPreallocation(C, 1, dnnz, onnz, nullptr, nullptr));
  PetscCall(PetscFree2(dnnz, onnz));
  PetscCall(MatGetOwnershipRange(A, &rstart, nullptr));
  for (PetscInt r = rstart; r < rstart + m; r++) {
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscInt           nz;
    PetscCall(MatGetRow(A, r, &nz, &cols, &vals));
    PetscCall(MatSetValues(C, 1, &r, nz, cols, vals, INSERT_VALUES));
    PetscCall(MatRestoreRow(A, r, &nz, &cols, &vals));
  }
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatSetOption(C, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_FALSE));
  PetscCall(MatSetOption(C, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  *B = C;
  PetscFunctionReturn(PETSC_SUCCESS);
}

namespace {
/* To the parent family: MatConvert() reaches it through the source's general converter (ops->convert,
   MatConvert_General_SeqAIJSpMV: no converter is composed by name); to ours it falls back on the new matrix'
   ops->convertfrom (MatConvert_Parent_SeqAIJSpMV) */
PetscErrorCode MatConvert_SeqAIJSpMV_Parent(Mat A, MatType type, MatReuse reuse, Mat *B)
{
  PetscBool aij;

  PetscFunctionBegin;
  PetscCall(PetscStrcmpAny(type, &aij, MATSEQAIJ, MATAIJ, ""));
  if (reuse == MAT_INITIAL_MATRIX && aij && OnGPUParent(Ctx(A))) {
    PetscCall(SpMVConvertToAIJ(A, type, B));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(SpMVConvertThroughParent(A, type, reuse, B, true, MatSpMVSeqDetach));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* from any matrix (MatConvert's "convertfrom" of the new matrix: after the specialized converters it looks up by name,
   none of which names ours): through the parent, then the overlay */
PetscErrorCode MatConvert_Parent_SeqAIJSpMV(Mat A, MatType type, MatReuse reuse, Mat *B)
{
  const SpMVFormatInfo *f = SpMVFindFormat(type);

  PetscFunctionBegin;
  PetscCheck(f, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "Unknown petsc-spmv matrix type %s", type);
  PetscCall(SpMVConvertThroughParent(A, SpMVHaveGPU() ? MATSEQAIJCUSPARSE : MATSEQAIJ, reuse, B, false, [f](Mat C) { return Attach(C, f, PETSC_FALSE, SpMVHostReferenceDefault(C)); }));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* to the parents (the overlay comes off) and to any other type (as PETSc converts the parent without a converter) */
PetscErrorCode MatConvert_General_SeqAIJSpMV(Mat A, MatType type, MatReuse reuse, Mat *B)
{
  PetscFunctionBegin;
  PetscCall(SpMVConvertGeneral(A, type, reuse, B, MATSEQAIJ, MATSEQAIJCUSPARSE, MatConvert_SeqAIJSpMV_Parent));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Put the overlay on the parent matrix B (seqaijcusparse, or seqaij without a GPU; may be unassembled). A block
   of an MPI matrix keeps the parent's name and has no converters. A header that carries an overlay already (a
   matrix re-typed with MatSetType) gets a new one. */
PetscErrorCode Attach(Mat B, const SpMVFormatInfo *f, PetscBool block, PetscBool hostref)
{
  Mat_SeqAIJSpMV *c = new Mat_SeqAIJSpMV();
  PetscBool       lend = (PetscBool)PetscDefined(USE_DEBUG);

  PetscFunctionBegin;
  c->info  = f;
  c->fmt   = f->create();
  c->block = block;
  PetscCall(PetscStrncpy(c->parent, ((PetscObject)B)->type_name, sizeof(c->parent)));
  PetscCall(PetscStrncpy(c->visible, block ? c->parent : f->seqname, sizeof(c->visible)));
  { /* a process-wide option, read once: a lookup per matrix was a third of the overlay's creation cost */
    static PetscBool read = PETSC_FALSE, opt = PETSC_FALSE, set = PETSC_FALSE;
    if (!read) PetscCall(PetscOptionsGetBool(NULL, NULL, "-mat_spmv_lend_type_name", &opt, &set));
    read = PETSC_TRUE;
    if (set) lend = opt;
  }
  c->lend = (PetscBool)(lend && !block);
  SetExec(c, hostref);
  PetscCall(SpMVComposeOverlay(B, c));
  if (c->exec != kDevice) B->boundtocpu = PETSC_FALSE; /* MatCreate() starts every matrix bound; our products run unless bound */
  PetscCall(Capture(B, c));
  if (!block) PetscCall(PetscObjectChangeTypeName((PetscObject)B, c->visible));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

PetscErrorCode MatSpMVSeqAttach(Mat B, const SpMVFormatInfo *f, PetscBool hostref) { return Attach(B, f, PETSC_TRUE, hostref); }

PetscBool MatSpMVSeqHasOverlay(Mat A)
{
  Mat_SeqAIJSpMV *c = Ctx(A);
  /* a header re-typed by MatSetType keeps a stale container: the overlay is there only while its products are */
  return (PetscBool)(c && A->ops->mult == MatMult_SeqAIJSpMV);
}

/* Take the overlay off: the parent's operations and composed functions back, the parent's name */
PetscErrorCode MatSpMVSeqDetach(Mat A)
{
  Mat_SeqAIJSpMV *c = Ctx(A);

  PetscFunctionBegin;
  PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_PLIB, "petsc-spmv: no overlay to detach");
  ReplacedOps::Release(A, c);
  VecOps::Release(A, c);
  if (!c->block) {
    VisibleOps::Release(A, c);
    PetscCall(PetscObjectComposeFunction((PetscObject)A, kProductNames[3], nullptr));
    if (c->parentnames && c->productsfo)
      for (int k = 0; k < 3; k++) PetscCall(PetscObjectComposeFunction((PetscObject)A, kProductNames[k], c->productsfo));
    if (c->lend) {
      LentOps::Release(A, c);
      for (int k = 0; k < kNumComposed; k++) PetscCall(PetscObjectComposeFunction((PetscObject)A, kComposedNames[k], c->composed[k]));
    }
    PetscCall(PetscObjectChangeTypeName((PetscObject)A, c->parent));
  }
  PetscCall(SpMVComposeOverlay(A, nullptr)); /* frees the overlay */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The block of an MPI matrix takes the options and the execution side of its parent */
PetscErrorCode MatSpMVSeqSetup(Mat B, const SpMVFormat *opts, PetscBool hostref)
{
  Mat_SeqAIJSpMV *c = Ctx(B);

  PetscFunctionBegin;
  if (opts) PetscCall(c->fmt->CopyOptions(*opts));
  SetExec(c, hostref);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The constructor behind MatSetType(A, "seqaij<fmt>") for every format */
PetscErrorCode MatCreate_SeqAIJSpMV(Mat A, const SpMVFormatInfo *f)
{
  PetscFunctionBegin;
  if (SpMVHaveGPU()) {
    PetscCall(MatCreate_SeqAIJCUSPARSE(A));
    PetscCall(spmv::WarmPool()); /* the device pool and kernel modules, on a thread, while the matrix is filled */
  } else PetscCall(MatCreate_SeqAIJ(A));
  PetscCall(Attach(A, f, PETSC_FALSE, SpMVHostReferenceDefault(A)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- factorizations ----------------------------------------------------------------------------------- */
/* MatGetFactor() without a solver type takes the first one registered for the exact type name, then one for a
   base name: aijcusparse gets cuSPARSE's factorizations (triangular solves on the GPU), a seqaij<fmt> matrix
   would get SeqAIJ's (on the host). So each plugin type is registered with MATSOLVERCUSPARSE too: the factor is
   aijcusparse's own, made with the matrix lent the parent's name, and its symbolic and numeric phases lend it
   again (cuSPARSE's ILU(0)/ICC(0) check the operand's type name). Without a GPU it declines (NULL), and
   MatGetFactor() goes on to SeqAIJ's, as for any AIJ matrix. */
namespace {
using FactorFn = PetscErrorCode (*)(Mat, MatFactorType, Mat *);
FactorFn cusparseFactor[MAT_FACTOR_NUM_TYPES] = {};

/* the factor's phases behind the thunks, in a container on the factor matrix */
struct FactorPhases {
  struct _MatOps ops;
};
constexpr const char kFactorName[] = "MatSpMVFactorPhases";

PetscErrorCode FactorOps(Mat F, struct _MatOps **ops)
{
  FactorPhases *p = nullptr;

  PetscFunctionBegin;
  PetscCall(PetscObjectContainerQuery((PetscObject)F, kFactorName, &p));
  PetscCheck(p, PETSC_COMM_SELF, PETSC_ERR_PLIB, "petsc-spmv: lost the phases of a factorization");
  *ops = &p->ops;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode WrapFactorPhases(Mat F);

/* the slot of operation M of the factor F taken by the thunk T::Call, the factor's own entry saved (FactorOps) */
template <typename T, typename Fn, Fn _MatOps::*M>
struct FactorSlot {
  static PetscErrorCode Wrap(Mat F, struct _MatOps *saved)
  {
    auto &live = F->ops->*M;
    if (live && live != T::Call) {
      saved->*M = live;
      live      = T::Call;
    }
    return PETSC_SUCCESS;
  }
};

/* a phase (F, A, ...) of the factor F: A lent the parent's name; the phase may set the next one (numeric) */
template <typename F, F _MatOps::*M>
struct FactorThunk;
template <typename... Args, PetscErrorCode (*_MatOps::*M)(Mat, Mat, Args...)>
struct FactorThunk<PetscErrorCode (*)(Mat, Mat, Args...), M> : FactorSlot<FactorThunk<PetscErrorCode (*)(Mat, Mat, Args...), M>, PetscErrorCode (*)(Mat, Mat, Args...), M> {
  static PetscErrorCode Call(Mat F, Mat A, Args... args)
  {
    struct _MatOps *ops;

    PetscFunctionBegin;
    PetscCall(FactorOps(F, &ops));
    {
      ParentNames lend;
      lend.Add(A);
      PetscCall((ops->*M)(F, A, args...));
    }
    PetscCall(WrapFactorPhases(F));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};
#define SPMV_FACTOR(op) FactorThunk<decltype(_MatOps::op), &_MatOps::op>

/* a triangular solve (F, b, x) or (F, b, y, x) of the cuSPARSE factor: host vectors staged (OnCUDAVectors; aijcusparse's
   own ILU gives a wrong answer and no error on a program's VecCreateSeq vectors: ts ex3 -ts_type rosw) */
template <typename F, F _MatOps::*M>
struct SolveThunk;
template <typename... V, PetscErrorCode (*_MatOps::*M)(Mat, V...)>
struct SolveThunk<PetscErrorCode (*)(Mat, V...), M> : FactorSlot<SolveThunk<PetscErrorCode (*)(Mat, V...), M>, PetscErrorCode (*)(Mat, V...), M> {
  static PetscErrorCode Call(Mat F, V... v)
  {
    struct _MatOps *ops;

    PetscFunctionBegin;
    PetscCall(FactorOps(F, &ops));
    PetscCall(OnCUDAVectors([&](auto... w) { return (ops->*M)(F, w...); }, v...));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
};
#define SPMV_SOLVE(op) SolveThunk<decltype(_MatOps::op), &_MatOps::op>

PetscErrorCode WrapFactorPhases(Mat F)
{
  struct _MatOps *ops;

  PetscFunctionBegin;
  PetscCall(FactorOps(F, &ops));
  PetscCall(SPMV_FACTOR(lufactorsymbolic)::Wrap(F, ops));
  PetscCall(SPMV_FACTOR(ilufactorsymbolic)::Wrap(F, ops));
  PetscCall(SPMV_FACTOR(choleskyfactorsymbolic)::Wrap(F, ops));
  PetscCall(SPMV_FACTOR(iccfactorsymbolic)::Wrap(F, ops));
  PetscCall(SPMV_FACTOR(lufactornumeric)::Wrap(F, ops));
  PetscCall(SPMV_FACTOR(choleskyfactornumeric)::Wrap(F, ops));
  PetscCall(SPMV_SOLVE(solve)::Wrap(F, ops)); /* set by the numeric phase */
  PetscCall(SPMV_SOLVE(solveadd)::Wrap(F, ops));
  PetscCall(SPMV_SOLVE(solvetranspose)::Wrap(F, ops));
  PetscCall(SPMV_SOLVE(solvetransposeadd)::Wrap(F, ops));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode DestroyFactorPhases(PetscCtxRt p)
{
  delete *(FactorPhases **)p;
  return PETSC_SUCCESS;
}

PetscErrorCode MatGetFactor_SeqAIJSpMV_CUSPARSE(Mat A, MatFactorType ftype, Mat *F)
{
  Mat_SeqAIJSpMV *c = Ctx(A);

  PetscFunctionBegin;
  *F = nullptr;
  if (!c || !OnGPUParent(c) || !cusparseFactor[ftype]) PetscFunctionReturn(PETSC_SUCCESS); /* declined: SeqAIJ's next */
  {
    ParentNames lend;
    lend.Add(A);
    PetscCall(cusparseFactor[ftype](A, ftype, F));
  }
  if (!*F) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectContainerCompose((PetscObject)*F, kFactorName, new FactorPhases(), DestroyFactorPhases));
  PetscCall(WrapFactorPhases(*F));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

PetscErrorCode MatSpMVRegisterFormat(const SpMVFormatInfo *f, PetscErrorCode (*createseq)(Mat), PetscErrorCode (*creatempi)(Mat))
{
  PetscFunctionBegin;
  if (!SpMVFindFormat(f->root)) Registry().push_back(f);
  PetscCall(MatRegister(f->seqname, createseq));
  PetscCall(MatRegister(f->mpiname, creatempi));
  PetscCall(MatRegisterRootName(f->root, f->seqname, f->mpiname));
  for (MatFactorType t : {MAT_FACTOR_LU, MAT_FACTOR_CHOLESKY, MAT_FACTOR_ILU, MAT_FACTOR_ICC}) {
    if (!cusparseFactor[t]) PetscCall(MatSolverTypeGet(MATSOLVERCUSPARSE, MATSEQAIJCUSPARSE, t, NULL, NULL, &cusparseFactor[t]));
    if (cusparseFactor[t]) PetscCall(MatSolverTypeRegister(MATSOLVERCUSPARSE, f->seqname, t, MatGetFactor_SeqAIJSpMV_CUSPARSE));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The format object of a seqaij<fmt> matrix (for queries such as MatSpMVGetFormat()), brought up to date first
   (built or refreshed, as at a product) when 'sync' and the matrix is assembled with nonzeros */
PetscErrorCode MatSpMVSeqGetFormat(Mat A, PetscBool sync, const SpMVFormatInfo **info, SpMVFormat **fmt)
{
  Mat_SeqAIJSpMV *c = Ctx(A);

  PetscFunctionBegin;
  *info = nullptr;
  *fmt  = nullptr;
  if (!c) PetscFunctionReturn(PETSC_SUCCESS); /* no petsc-spmv format on this matrix */
  if (sync && A->assembled && ((Mat_SeqAIJ *)A->data)->nz && !(A->boundtocpu && c->exec == kDevice)) PetscCall(Sync(A, c, (PetscBool)(c->exec != kDevice))); /* without a GPU: what the host reference would run; bound: no upload */
  *info = c->info;
  *fmt  = c->fmt;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@
  MatSpMVVerify - Developer check: rebuilds the format's host reference from the host CSR and compares
  it entry by entry with the layout built on the GPU (the same arrays must come out).

  Collective

  Input Parameter:
. A - an assembled matrix of a petsc-spmv type (or a block of one), with products on the GPU

  Output Parameter:
. maxdiff - the largest difference between device and host values (0 when the build is exact)

  Level: developer

.seealso: `MatSetType()`, `PetscSpMVInitializePackage()`
@*/
PetscErrorCode MatSpMVVerify(Mat A, PetscReal *maxdiff)
{
  Mat_SeqAIJSpMV *c;
  cudaStream_t    s;
  SpMVHostCsr     h;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(A, MAT_CLASSID, 1);
  c = Ctx(A);
  PetscCheck(c, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Not a petsc-spmv sequential matrix: %s", ((PetscObject)A)->type_name);
  PetscCheck(c->exec == kDevice, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatSpMVVerify compares the GPU layout; this matrix runs on the host");
  PetscCall(Sync(A, c, PETSC_FALSE));
  PetscCheck(!c->nofit, PETSC_COMM_SELF, c->toolarge ? PETSC_ERR_INT_OVERFLOW : PETSC_ERR_MEM, "MatSpMVVerify: there is no GPU layout to compare (%s)", c->toolarge ? "the block overflows its 32-bit indices" : "it did not fit in device memory");
  PetscCall(PetscGetCurrentCUDAStream(&s));
  PetscCall(HostCsr(A, &h));
  PetscCall(c->fmt->Verify(h, s, maxdiff));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Has this petsc-spmv matrix (or block) no GPU layout (out of device memory, or too large for 32-bit indices), so that
   the parent runs its products? */
PetscBool MatSpMVSeqNoFit(Mat A)
{
  Mat_SeqAIJSpMV *c = Ctx(A);
  return (PetscBool)(c && c->exec == kDevice && c->nofit);
}

/* Does this sequential AIJ matrix (seqaijcusparse, a petsc-spmv matrix or block with a GPU parent) keep its
   values on the GPU, unbound? Then MatSpMVSeqDeviceCsr() gives its device CSR. */
PetscBool MatSpMVSeqOnGPU(Mat A)
{
  Mat_SeqAIJSpMV *c = Ctx(A);
  PetscBool       cusp;

  if (A->boundtocpu) return PETSC_FALSE;
  if (c) return OnGPUParent(c);
  return (PetscBool)(!PetscObjectTypeCompare((PetscObject)A, MATSEQAIJCUSPARSE, &cusp) && cusp);
}

/* The parent's device CSR of such a matrix (row offsets uncompressed; aijcusparse uploads newer host values
   first): get, then give back with restore = PETSC_TRUE and the same pointers. A petsc-spmv matrix is lent
   the parent's name for the calls (aijcusparse checks type names). */
PetscErrorCode MatSpMVSeqDeviceCsr(Mat A, PetscBool restore, const PetscInt **i, const PetscInt **j, const PetscScalar **a)
{
  ParentNames lend;

  PetscFunctionBegin;
  lend.Add(A);
  if (!restore) {
    PetscCall(MatSeqAIJCUSPARSEGetIJ(A, PETSC_FALSE, i, j));
    PetscCall(MatSeqAIJCUSPARSEGetArrayRead(A, a));
  } else {
    PetscCall(MatSeqAIJCUSPARSERestoreArrayRead(A, a));
    PetscCall(MatSeqAIJCUSPARSERestoreIJ(A, PETSC_FALSE, i, j));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
