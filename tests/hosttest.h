/* Shared by the formats' host unit tests (tests/test_<fmt>_host.cxx): failure recording and one report
   line per check group. A test sets g_context to say what is being checked, calls Check() on each
   condition, and ReportGroup() after each group; it exits nonzero when g_failures > 0. */
#pragma once
#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

static int         g_failures = 0; /* all failures so far */
static std::string g_context;      /* what is being checked; printed with each failure */
static const int   kMaxReported = 40;

/* Records a failure (and prints it, up to kMaxReported) when ok is false; returns ok */
static bool Check(bool ok, const char *fmt, ...)
{
  if (ok) return true;
  if (++g_failures <= kMaxReported) {
    char    msg[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    std::printf("FAIL [%s]: %s\n", g_context.c_str(), msg);
  } else if (g_failures == kMaxReported + 1)
    std::printf("FAIL ... (further failures not printed)\n");
  std::fflush(stdout);
  return false;
}

/* One line per check group: its summary and whether it added failures */
static void ReportGroup(const char *group, int failures_before, const std::string &summary)
{
  const int f = g_failures - failures_before;
  if (f == 0)
    std::printf("%-18s %s: ok\n", group, summary.c_str());
  else
    std::printf("%-18s %s: FAILED (%d failures)\n", group, summary.c_str(), f);
  std::fflush(stdout);
}

/* "[a,b,c]" of an integer array */
template <typename T>
static std::string ToString(const std::vector<T> &v)
{
  std::string s = "[";
  for (std::size_t k = 0; k < v.size(); k++) s += (k ? "," : "") + std::to_string(v[k]);
  return s + "]";
}

/* Exact comparison of a layout array with the expected one */
template <typename T, typename U>
static void CheckArray(const char *name, const std::vector<T> &got, const std::vector<U> &expected)
{
  bool same = got.size() == expected.size();
  for (std::size_t k = 0; same && k < got.size(); k++) same = got[k] == (T)expected[k];
  Check(same, "%s = %s, expected %s", name, ToString(got).c_str(), ToString(expected).c_str());
}
