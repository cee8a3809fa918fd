/* Shared by the formats' host unit tests (tests/test_<fmt>_host.cxx): failure recording and one report
   line per check group. A test sets g_context to say what is being checked, calls Check() on each
   condition, and ReportGroup() after each group; it exits nonzero when g_failures > 0. */
#pragma once
#include <cstdarg>
#include <cstdio>
#include <string>

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
