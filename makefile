# petsc-spmv: GPU SpMV formats as PETSc matrix types (a plugin library).
#
#   make          dependencies (config/petsc.sh: MPICH, LAPACK, PETSc 3.26.1 + CUDA, cached) and libpetscspmv.so
#   make run      ... and PETSc's unmodified ex19 with -dm_mat_type spmv (on the GPU when there is one)
#   make test     ... and the test suite (no GPU needed; ends with "N passed, N failed"); on the self-built route it
#                 also builds against the complex PETSc (build-complex) and the 64-bit-index one (build-int64) and runs
#                 their checks (tests/complex.sh, tests/int64.sh)
#   make SCALAR=complex [lib|test|gpu]   the same against PETSc with complex scalars, in build-complex
#   make INDICES=64 [lib|test]           the same against PETSc with 64-bit PetscInt, in build-int64
#   make gpu      binaries and a bundle for the GPU machine (tests/gpu/run.sh runs there)
#   make install PREFIX=DIR    lib/libpetscspmv.so, include/petscspmv.h, lib/pkgconfig/petsc-spmv.pc
#   make uninstall PREFIX=DIR  removes those three files
#   make petsc4py              petsc4py of the same PETSc in a cached venv; build/python runs it (examples/python/)
#   pip install .              the Python package petsc-spmv (pyproject.toml): its backend runs `make lib` and
#                              `make install` against PETSC_DIR or PyPI's petsc (python/backend/petsc_spmv_backend.py)
#   make gpu-pip               packs the pip route's venv (/tmp/pipvenv) for the GPU machine (tests/gpu/pip.sh runs there)
#
# A user's PETSC_DIR/PETSC_ARCH (environment or command line) is checked (config/check-petsc.sh) and used as is;
# nothing is built then. The build folder remembers it: later `make` calls need not repeat it.
.SUFFIXES:
.DEFAULT_GOAL := lib
# SCALAR=complex: the self-built PETSc with complex scalars (config/petsc.sh, its own prefix) in its own build folder
SCALAR ?= real
# INDICES=64: the self-built PETSc with 64-bit PetscInt (--with-64-bit-indices), likewise
INDICES ?= 32
BUILD  ?= build$(if $(filter complex,$(SCALAR)),-complex)$(if $(filter 64,$(INDICES)),-int64)
SHELL  := /bin/bash

# config/petsc.sh checks the PETSc (or builds and installs its own) and writes $(BUILD)/petsc.mk; a bad set-up
# stops here with its message. Made again when a PETSC_DIR/PETSC_ARCH other than its own is asked for.
PETSC_ASKED := $(PETSC_DIR):$(PETSC_ARCH)
NO_PETSC_GOALS := clean distclean uninstall gpu-pip
ifneq ($(if $(MAKECMDGOALS),$(filter-out $(NO_PETSC_GOALS),$(MAKECMDGOALS)),lib),)
include $(BUILD)/petsc.mk
endif
$(BUILD)/petsc.mk: config/petsc.sh config/check-petsc.sh $(if $(filter-out : $(PETSC_MK_FOR),$(PETSC_ASKED)),FORCE)
	@mkdir -p $(BUILD); rm -f $@
	@set -o pipefail; PETSC_SPMV_SCALAR=$(SCALAR) PETSC_SPMV_INDICES=$(INDICES) bash config/petsc.sh | tr ' ' '\n' | sed 's/^\([A-Z_]*\)=/\1 ?= /' > $@.tmp && \
	  echo 'PETSC_MK_FOR := $(PETSC_ASKED)' >> $@.tmp && mv $@.tmp $@ || { rm -f $@.tmp; exit 1; }
FORCE:

ifneq ($(PETSC_DIR),)
-include $(PETSC_DIR)/lib/petsc/conf/variables
# objects are rebuilt when the PETSc (or its private-header folder) changes
PETSC_ID := $(BUILD)/petsc.id
$(shell mkdir -p $(BUILD); echo '$(PETSC_DIR) $(PETSC_ARCH) $(PETSC_PRIVATE_INC)' | cmp -s - $(PETSC_ID) || echo '$(PETSC_DIR) $(PETSC_ARCH) $(PETSC_PRIVATE_INC)' > $(PETSC_ID))

LIB      := $(BUILD)/lib/libpetscspmv.so
CU_SRC   := src/sys/spmvregister.cu src/dm/spmvdm.cu src/mat/impls/spmv/spmvdevice.cu src/mat/impls/spmv/aijspmv.cu src/mat/impls/spmv/mpiaijspmv.cu src/mat/impls/spmv/single.cu src/ksp/pc/impls/poly/polydevice.cu $(wildcard src/mat/impls/spmv/*/*.cu)
CXX_SRC  := $(wildcard src/mat/impls/spmv/*/*host.cxx)
C_SRC    := src/ksp/pc/impls/poly/poly.c
HOST_OBJ := $(CXX_SRC:%.cxx=$(BUILD)/obj/%.o)
OBJ      := $(CU_SRC:%.cu=$(BUILD)/obj/%.o) $(HOST_OBJ) $(C_SRC:%.c=$(BUILD)/obj/%.o)
# PETSc's private headers are included as <../src/mat/impls/aij/...>: PETSC_DIR/include/../src in an in-place
# build; for a prefix install PETSC_PRIVATE_INC (config/petsc.sh) adds an empty folder whose ../src holds them
INC      := -Iinclude -Isrc $(PETSC_PRIVATE_INC)
NVCCOPT  ?= -lineinfo
CUFLAGS   = $(CUDAC_FLAGS) $(NVCCOPT) -Xcompiler -fPIC -Werror all-warnings --compiler-options="$(CXXCPPFLAGS) $(CUDA_CXXFLAGS)" $(INC)
CXXFLAGS_ = $(CXX_FLAGS) $(CXXCPPFLAGS) $(INC)
CFLAGS_   = $(PCC_FLAGS) $(CCPPFLAGS) $(INC)
# The stub libnvidia-ml.so.1 is put on the library path only where no driver provides the real one.
HAVE_NVML := $(shell ldconfig -p 2>/dev/null | grep -q 'libnvidia-ml.so.1 ' && echo yes)
RUNENV    := LD_LIBRARY_PATH=$(if $(HAVE_NVML),,$(NVMLSTUB):)$${LD_LIBRARY_PATH:-}
HAVE_GPU  := $(shell nvidia-smi -L >/dev/null 2>&1 && echo yes)
GPUOPTS   := $(if $(HAVE_GPU),-dm_vec_type cuda -use_gpu_aware_mpi 0,)
EXAMPLES   = $(BUILD)/bin/spmv_solve $(BUILD)/bin/bench_spmv $(BUILD)/bin/bench_ops $(BUILD)/bin/bench_pcapply $(BUILD)/bin/bench_assembly \
             $(foreach t,$(TUTORIALS),$(BUILD)/bin/$(word 1,$(subst :, ,$(t))))
HOST_TESTS := $(patsubst tests/%.cxx,$(BUILD)/bin/%,$(wildcard tests/test_*_host.cxx))
TESTS     := $(HOST_TESTS) $(BUILD)/bin/test_matops $(BUILD)/bin/test_aijops $(BUILD)/bin/test_ksp $(BUILD)/bin/test_mpi $(BUILD)/bin/test_gpu $(BUILD)/bin/test_poly $(BUILD)/bin/test_poly_single $(BUILD)/bin/test_spmv $(BUILD)/bin/test_pcs $(BUILD)/bin/test_retype $(BUILD)/bin/test_bigindex
endif

.PHONY: lib run test gpu gpu-pip bench clean distclean install uninstall petsc4py complex-bins int64-bins
lib: $(LIB)

$(BUILD)/obj/%.o: %.cu $(wildcard src/mat/impls/spmv/*.h src/mat/impls/spmv/*.cuh src/mat/impls/spmv/*/*.h src/ksp/pc/impls/*/*.h include/*.h) $(PETSC_ID)
	@mkdir -p $(@D)
	$(CUDAC) -c -o $@ $(CUFLAGS) $<
$(BUILD)/obj/%.o: %.cxx $(wildcard src/mat/impls/spmv/*.h src/mat/impls/spmv/*/*.h include/*.h) $(PETSC_ID)
	@mkdir -p $(@D)
	$(CXX) -c -o $@ $(CXXFLAGS_) -fPIC $<
# the preconditioners (plain C on PETSc's Mat/Vec interface)
$(BUILD)/obj/%.o: %.c $(wildcard src/ksp/pc/impls/*/*.h include/*.h) $(PETSC_ID)
	@mkdir -p $(@D)
	$(PCC) -c -o $@ $(CFLAGS_) -fPIC $<
$(LIB): $(OBJ)
	@mkdir -p $(@D)
	$(CXX_LINKER) -shared -fPIC -Wl,-soname,libpetscspmv.so -o $@ $^ $(PETSC_LIB)

# PETSc's own ex19 (SNES) and ex56 (3D elasticity, GAMG), unmodified, from the PETSc source tree (a prefix
# install has them among its examples)
PETSC_TUTORIAL = $(firstword $(wildcard $(PETSC_DIR)/src/$(1) $(PETSC_DIR)/share/petsc/examples/src/$(1) \
                   $(patsubst -I%,%/../src/$(1),$(PETSC_PRIVATE_INC))) $(PETSC_DIR)/src/$(1))
# The whole-run benchmark (bench/run_wholerun_bench.sh) adds KSP's ex2 (MatSetValues one entry per call), ex45
# (3D Poisson on a DMDA, MatSetValuesStencil), bench_kspsolve (3D Poisson assembled by COO) and SNES's ex5 (Bratu,
# Jacobian by MatSetValuesStencil every Newton step); its second set (programs never used to tune anything):
# KSP ex50 (2D Poisson on a DMDA, KSPSetComputeOperators), ex34 (3D Neumann Poisson, DMDA), SNES ex12 (Poisson
# by finite elements on a DMPlex: MatSetValuesClosure), SNES ex48 (3D hydrostatic ice, block size 2) and TS's
# ex13 (2D heat equation on a DMDA, implicit time steps, Jacobian re-assembled each step); KSP ex10 (MatLoad of a
# binary file) for the tests.
# name:path under src/ of PETSc's tutorials, each built unmodified into $(BUILD)/bin/name
TUTORIALS := ex19:snes/tutorials/ex19.c ex56:ksp/ksp/tutorials/ex56.c ex2:ksp/ksp/tutorials/ex2.c ex45:ksp/ksp/tutorials/ex45.c \
             ex5:snes/tutorials/ex5.c bench_kspsolve:ksp/ksp/tutorials/bench_kspsolve.c ksp_ex50:ksp/ksp/tutorials/ex50.c \
             ksp_ex34:ksp/ksp/tutorials/ex34.c snes_ex12:snes/tutorials/ex12.c snes_ex48:snes/tutorials/ex48.c \
             ts_ex13:ts/tutorials/ex13.c ksp_ex10:ksp/ksp/tutorials/ex10.c \
             ksp_ex1:ksp/ksp/tutorials/ex1.c ksp_ex3:ksp/ksp/tutorials/ex3.c ksp_ex7:ksp/ksp/tutorials/ex7.c \
             ksp_ex8:ksp/ksp/tutorials/ex8.c ksp_ex9:ksp/ksp/tutorials/ex9.c ksp_ex15:ksp/ksp/tutorials/ex15.c \
             ksp_ex18:ksp/ksp/tutorials/ex18.c ksp_ex23:ksp/ksp/tutorials/ex23.c ksp_ex25:ksp/ksp/tutorials/ex25.c \
             ksp_ex29:ksp/ksp/tutorials/ex29.c ksp_ex32:ksp/ksp/tutorials/ex32.c ksp_ex42:ksp/ksp/tutorials/ex42.c \
             ksp_ex43:ksp/ksp/tutorials/ex43.c ksp_ex46:ksp/ksp/tutorials/ex46.c ksp_ex49:ksp/ksp/tutorials/ex49.c \
             ksp_ex52:ksp/ksp/tutorials/ex52.c ksp_ex55:ksp/ksp/tutorials/ex55.c ksp_ex62:ksp/ksp/tutorials/ex62.c \
             ksp_ex70:ksp/ksp/tutorials/ex70.c ksp_ex84:ksp/ksp/tutorials/ex84.c \
             pc_ex3:ksp/pc/tutorials/ex3.c snes_ex1:snes/tutorials/ex1.c snes_ex2:snes/tutorials/ex2.c \
             snes_ex3:snes/tutorials/ex3.c snes_ex9:snes/tutorials/ex9.c snes_ex15:snes/tutorials/ex15.c \
             snes_ex16:snes/tutorials/ex16.c snes_ex28:snes/tutorials/ex28.c \
             snes_ex35:snes/tutorials/ex35.c snes_ex42:snes/tutorials/ex42.c snes_ex46:snes/tutorials/ex46.c \
             snes_ex56:snes/tutorials/ex56.c ts_ex2:ts/tutorials/ex2.c \
             ts_ex3:ts/tutorials/ex3.c ts_ex4:ts/tutorials/ex4.c ts_ex10:ts/tutorials/ex10.c ts_ex15:ts/tutorials/ex15.c \
             ts_ex20:ts/tutorials/ex20.c ts_ex26:ts/tutorials/ex26.c ts_ex46:ts/tutorials/ex46.c \
             snes_ex13:snes/tutorials/ex13.c snes_ex17:snes/tutorials/ex17.c snes_ex62:snes/tutorials/ex62.c \
             snes_ex69:snes/tutorials/ex69.c ksp_ex5:ksp/ksp/tutorials/ex5.c ksp_ex6:ksp/ksp/tutorials/ex6.c \
             ksp_ex54:ksp/ksp/tutorials/ex54.c ksp_ex65:ksp/ksp/tutorials/ex65.c ts_ex45:ts/tutorials/ex45.c \
             tao_minsurf2:tao/unconstrained/tutorials/minsurf2.c tao_eptorsion2:tao/unconstrained/tutorials/eptorsion2.c \
             tao_jbearing2:tao/bound/tutorials/jbearing2.c tao_plate2:tao/bound/tutorials/plate2.c \
             ksp_ex28:ksp/ksp/tutorials/ex28.c ksp_ex67:ksp/ksp/tutorials/ex67.c ksp_ex79:ksp/ksp/tutorials/ex79.c \
             ksp_ex90:ksp/ksp/tutorials/ex90.c snes_ex14:snes/tutorials/ex14.c snes_ex25:snes/tutorials/ex25.c \
             snes_ex58:snes/tutorials/ex58.c snes_ex78:snes/tutorials/ex78.c ts_ex12:ts/tutorials/ex12.c \
             ts_ex16:ts/tutorials/ex16.c ts_ex17:ts/tutorials/ex17.c ts_ex19:ts/tutorials/ex19.c \
             ts_ex21:ts/tutorials/ex21.c ts_ex22:ts/tutorials/ex22.c ts_ex24:ts/tutorials/ex24.c \
             ts_ex25:ts/tutorials/ex25.c tao_blackscholes:tao/complementarity/tutorials/blackscholes.c \
             tao_hyperbolic:tao/pde_constrained/tutorials/hyperbolic.c dmstag_ex3:dm/impls/stag/tutorials/ex3.c \
             dmstag_ex4:dm/impls/stag/tutorials/ex4.c ksp_ex4:ksp/ksp/tutorials/ex4.c ksp_ex12:ksp/ksp/tutorials/ex12.c \
             ksp_ex16:ksp/ksp/tutorials/ex16.c ksp_ex51:ksp/ksp/tutorials/ex51.c ksp_ex60:ksp/ksp/tutorials/ex60.c \
             ksp_ex73:ksp/ksp/tutorials/ex73.c ts_ex5:ts/tutorials/ex5.c ts_ex6:ts/tutorials/ex6.c \
             snes_ex71:snes/tutorials/ex71.c ksp_ex53:ksp/ksp/tutorials/ex53.c ksp_ex64:ksp/ksp/tutorials/ex64.c \
             ksp_ex66:ksp/ksp/tutorials/ex66.c snes_ex4:snes/tutorials/ex4.c snes_ex18:snes/tutorials/ex18.c \
             snes_ex20:snes/tutorials/ex20.c snes_ex34:snes/tutorials/ex34.c snes_ex77:snes/tutorials/ex77.c \
             ts_ex8:ts/tutorials/ex8.c ts_ex29:ts/tutorials/ex29.c ts_ex36:ts/tutorials/ex36.c ts_ex50:ts/tutorials/ex50.c
define TUTORIAL_RULE
$(BUILD)/bin/$(1): $(call PETSC_TUTORIAL,$(2))
	@mkdir -p $$(@D)
	$$(PCC) -o $$@ $$(CFLAGS_) $$< $$(PETSC_LIB)
endef
$(foreach t,$(TUTORIALS),$(eval $(call TUTORIAL_RULE,$(word 1,$(subst :, ,$(t))),$(word 2,$(subst :, ,$(t))))))
$(BUILD)/bin/%: examples/%.c examples/spmvexamples.h $(LIB)
	@mkdir -p $(@D)
	$(PCC) -o $@ $(CFLAGS_) $< -Wl,-rpath,$(abspath $(BUILD)/lib) -L$(BUILD)/lib -lpetscspmv $(PETSC_LIB)
# the benchmark also links its floor kernels (examples/benchfloor.cu)
$(BUILD)/bin/bench_spmv: examples/bench_spmv.c examples/spmvexamples.h $(BUILD)/obj/examples/benchfloor.o $(LIB)
	@mkdir -p $(@D)
	$(PCC) -o $@ $(CFLAGS_) $< $(BUILD)/obj/examples/benchfloor.o -Wl,-rpath,$(abspath $(BUILD)/lib) -L$(BUILD)/lib -lpetscspmv $(PETSC_LIB)
# host unit tests (tests/test_<fmt>_host.cxx) link the format objects directly (hidden in the library)
$(BUILD)/bin/test_%_host: tests/test_%_host.cxx tests/hosttest.h tests/hostcsr.h $(HOST_OBJ)
	@mkdir -p $(@D)
	$(CXX) -o $@ $(CXXFLAGS_) $(filter-out %.h,$^) $(PETSC_LIB)
$(BUILD)/bin/test_%: tests/test_%.c examples/spmvexamples.h $(LIB)
	@mkdir -p $(@D)
	$(PCC) -o $@ $(CFLAGS_) -Iexamples $< -Wl,-rpath,$(abspath $(BUILD)/lib) -L$(BUILD)/lib -lpetscspmv $(PETSC_LIB)

# SURAA's dynamic-parallelism G1 (-mat_suraa_dynamic_parallelism), off by default: make SPMV_SURAA_CDP=1
# (best in its own build folder: make BUILD=build-cdp SPMV_SURAA_CDP=1). suraa.cu is compiled as relocatable
# device code, device-linked on its own, and the library links the device runtime (cudadevrt).
ifeq ($(SPMV_SURAA_CDP),1)
SURAA_CDP_OBJ := $(BUILD)/obj/src/mat/impls/spmv/suraa/suraa.o
$(SURAA_CDP_OBJ): CUFLAGS += -rdc=true -DSPMV_SURAA_CDP
$(BUILD)/obj/suraa_dlink.o: $(SURAA_CDP_OBJ)
	$(CUDAC) -dlink $(CUDAC_FLAGS) -Xcompiler -fPIC -o $@ $< -lcudadevrt
$(LIB): $(BUILD)/obj/suraa_dlink.o
PETSC_LIB += -lcudadevrt
endif

run: $(LIB) $(BUILD)/bin/ex19
	$(RUNENV) $(BUILD)/bin/ex19 -dll_append $(abspath $(LIB)) -dm_mat_type spmv $(GPUOPTS) \
	  -da_grid_x 64 -da_grid_y 64 -snes_monitor -ksp_converged_reason -snes_converged_reason -log_view :$(BUILD)/ex19_log.txt -info $(BUILD)/ex19_info.txt:sys
	@grep -h -E "spmv \(|spmv: .*(until the selection pays|is due after)" $(BUILD)/ex19_info.txt* 2>/dev/null | sed 's/^\[0\] <sys> [A-Za-z]*(): /  /' | head -3
	@echo "ex19 with spmv: done$(if $(HAVE_GPU), on the GPU (cuSPARSE's own product until the products pay for a selection; then the format timed fastest; -mat_spmv_wait 0 selects at the first product), on the host (no GPU found): SeqAIJ's own product ran (-mat_spmv_host_reference runs the chosen format's host reference)). PETSc log: $(BUILD)/ex19_log.txt"

# Complex scalars: `make test` on the self-built route (no PETSC_DIR given) also builds the library and its complex checks
# against the complex PETSc (SCALAR=complex in build-complex; that PETSc is built once and cached like the real one), and
# tests/run.sh ends with them (tests/complex.sh). With a user's PETSC_DIR only its own scalar type is tested (TEST_COMPLEX=1
# adds the self-built complex PETSc). `make SCALAR=complex test` runs the complex checks alone.
COMPLEX_BINS := $(BUILD)/bin/test_complex $(BUILD)/bin/test_matops $(BUILD)/bin/test_ccoo_host
# 64-bit PetscInt likewise: the self-built route also builds against PETSc --with-64-bit-indices (INDICES=64 in build-int64)
# and tests/run.sh ends with its checks (tests/int64.sh); TEST_INT64=1 adds them to a user's PETSC_DIR, `make INDICES=64 test`
# runs them alone.
INT64_BINS := $(HOST_TESTS) $(BUILD)/bin/test_matops $(BUILD)/bin/test_aijops $(BUILD)/bin/test_ksp $(BUILD)/bin/test_mpi $(BUILD)/bin/test_pcs $(BUILD)/bin/ex19 $(BUILD)/bin/ex56
ifeq ($(INDICES),64)
test: $(LIB) $(INT64_BINS)
	@$(RUNENV) INT64_BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) bash tests/int64.sh
int64-bins: $(LIB) $(INT64_BINS)
else ifeq ($(SCALAR),complex)
test: $(LIB) $(COMPLEX_BINS)
	@$(RUNENV) COMPLEX_BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) bash tests/complex.sh
complex-bins: $(LIB) $(COMPLEX_BINS)
else
TEST_COMPLEX  ?= $(if $(filter :,$(PETSC_ASKED)),1,0)
COMPLEX_BUILD ?= build-complex
TEST_INT64    ?= $(if $(filter :,$(PETSC_ASKED)),1,0)
INT64_BUILD   ?= build-int64
test: $(LIB) $(EXAMPLES) $(TESTS) $(BUILD)/python $(if $(filter 1,$(TEST_COMPLEX)),complex-bins) $(if $(filter 1,$(TEST_INT64)),int64-bins)
	@$(RUNENV) BUILD=$(BUILD) MPIEXEC=$(MPIEXEC) PYTHON=$(BUILD)/python SPMV_PETSC_DIR=$(PETSC_DIR) SPMV_PETSC_ARCH=$(PETSC_ARCH) $(if $(filter 1,$(TEST_COMPLEX)),COMPLEX_BUILD=$(COMPLEX_BUILD)) $(if $(filter 1,$(TEST_INT64)),INT64_BUILD=$(INT64_BUILD)) bash tests/run.sh
complex-bins:
	@env -u PETSC_DIR -u PETSC_ARCH $(MAKE) --no-print-directory SCALAR=complex BUILD=$(COMPLEX_BUILD) complex-bins
int64-bins:
	@env -u PETSC_DIR -u PETSC_ARCH $(MAKE) --no-print-directory INDICES=64 BUILD=$(INT64_BUILD) int64-bins
endif

# Python: petsc4py of PETSc's own version, built against this PETSc once, in a venv cached beside it
# (config/petsc4py.sh); $(BUILD)/python runs that venv's python: $(BUILD)/python examples/python/solve.py
petsc4py: $(BUILD)/python
$(BUILD)/python: config/petsc4py.sh $(BUILD)/petsc.mk
	@$(RUNENV) PETSC_DIR=$(PETSC_DIR) PETSC_ARCH=$(PETSC_ARCH) bash config/petsc4py.sh $@
	@echo "petsc4py ready: $@ runs its python, e.g. $(RUNENV) $@ examples/python/solve.py -mat_type brc"

# make install PREFIX=DIR: the library, its header and a pkg-config file (Requires: PETSc's own .pc, of the exact
# version built against: the plugin uses PETSc's private headers). make uninstall PREFIX=DIR removes the three.
PREFIX ?= /usr/local
# the version: the file VERSION (the Python package's too)
SPMV_VERSION ?= $(shell cat VERSION)
PC_NAME = $(firstword $(foreach n,petsc PETSc,$(if $(wildcard $(PETSC_DIR)/$(PETSC_ARCH)/lib/pkgconfig/$(n).pc),$(n))) PETSc)
PC_VERSION = $(shell sed -n 's/^Version: *//p' $(PETSC_DIR)/$(PETSC_ARCH)/lib/pkgconfig/$(PC_NAME).pc)
# the scalar type of the PETSc built against (the library is built for one): recorded in the .pc as scalar_type
SPMV_SCALAR_TYPE = $(if $(shell grep -s '^\#define PETSC_USE_COMPLEX 1' $(PETSC_DIR)/$(PETSC_ARCH)/include/petscconf.h),complex,real)
install: $(LIB)
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/include
	install -m 755 $(LIB) $(DESTDIR)$(PREFIX)/lib/libpetscspmv.so
	install -m 644 include/petscspmv.h $(DESTDIR)$(PREFIX)/include/petscspmv.h
	@printf '%s\n' 'prefix=$(abspath $(PREFIX))' 'libdir=$${prefix}/lib' 'includedir=$${prefix}/include' \
	  'petsc_libdir=$(abspath $(PETSC_DIR)/$(PETSC_ARCH)/lib)' 'scalar_type=$(SPMV_SCALAR_TYPE)' 'precision=double' '' \
	  'Name: petsc-spmv' 'Description: GPU sparse matrix-vector product formats as PETSc matrix types (plugin; $(SPMV_SCALAR_TYPE) double scalars)' \
	  'Version: $(SPMV_VERSION)' 'Requires: $(PC_NAME) = $(PC_VERSION)' 'Cflags: -I$${includedir}' \
	  'Libs: -L$${libdir} -lpetscspmv -Wl,-rpath,$${libdir} -Wl,-rpath,$${petsc_libdir}' \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/petsc-spmv.pc
	@echo "installed into $(PREFIX): lib/libpetscspmv.so include/petscspmv.h lib/pkgconfig/petsc-spmv.pc"
	@echo "  load into any PETSc program: -dll_append $(abspath $(PREFIX))/lib/libpetscspmv.so -mat_type brc"
	@echo "  link: PKG_CONFIG_PATH=$(abspath $(PREFIX))/lib/pkgconfig:$(abspath $(PETSC_DIR)/$(PETSC_ARCH)/lib/pkgconfig) mpicc app.c \$$(pkg-config --cflags --libs petsc-spmv)"
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/lib/libpetscspmv.so $(DESTDIR)$(PREFIX)/include/petscspmv.h $(DESTDIR)$(PREFIX)/lib/pkgconfig/petsc-spmv.pc

# The benchmark suite (needs a GPU): SpMV table, solver table, plots into bench/results
bench: $(LIB) $(EXAMPLES)
	$(RUNENV) BUILD=$(BUILD) bash bench/run_all.sh

# Everything the GPU machine needs, packed by ../shared/tools/device-bundle.sh into .dev/bundle.tar.xz
SHARED ?= ../shared
# complex scalars: what the complex GPU checks and benchmark run (tests/gpu/run.sh complex)
GPU_BINS := $(if $(filter complex,$(SCALAR)),$(COMPLEX_BINS) $(BUILD)/bin/test_gpu $(BUILD)/bin/bench_spmv $(BUILD)/bin/spmv_solve,$(EXAMPLES) $(TESTS))
gpu: $(LIB) $(GPU_BINS)
	bash $(SHARED)/tools/device-bundle.sh $(PETSC_DIR)/$(PETSC_ARCH) $(abspath $(BUILD)) $(abspath $(SHARED)/matrices) $(GPU_EXTRA)
	cp $(SHARED)/tools/device-unpack.sh .dev/
	git rev-parse --short HEAD > .dev/commit

# The pip route (README) on the GPU machine: the venv that pip filled at /tmp/pipvenv, packed into .dev/pip-venv.tar.xz
gpu-pip:
	bash tests/gpu/pip-pack.sh

clean:
	rm -rf $(BUILD)/obj $(BUILD)/lib $(BUILD)/bin
distclean:
	rm -rf $(BUILD)
