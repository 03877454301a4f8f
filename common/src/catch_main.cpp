// The graders' main: Catch2's session, with one exit code per outcome whatever Catch2 version
// runs it: 0 when every test passed, 1 when any failed, 4 when every test it ran was skipped
// (the SKIP_RETURN_CODE CTest reads as skipped, cmake/CatchDiscover.cmake). Catch2 before 3.5
// exits with the number of failed assertions, so a test failing exactly four of them would
// read as skipped there.
//
// And the reporter CTest's tests run with (--reporter histo): per test, the test's own messages
// and where its check failed, as a student reads them in ctest's output and in GitHub
// Classroom: no banner, no filters, no seed line (every failure message names its seed), no
// line wrapping. A check that fails inside a grading helper (common/src/) is placed at the test
// case that called it, in the lab's grader.
#include <catch2/catch_session.hpp>
#include <catch2/catch_test_case_info.hpp>
#include <catch2/reporters/catch_reporter_event_listener.hpp>
#include <catch2/reporters/catch_reporter_registrars.hpp>
#include <catch2/reporters/catch_reporter_streaming_base.hpp>

#include <ostream>
#include <string>

namespace {

bool g_failed = false;

class FailureListener final : public Catch::EventListenerBase {
 public:
  using EventListenerBase::EventListenerBase;
  void testRunEnded(const Catch::TestRunStats& stats) override {
    g_failed = stats.totals.assertions.failed > 0 || stats.totals.testCases.failed > 0;
  }
};

}  // namespace

CATCH_REGISTER_LISTENER(FailureListener)

// "lab04_shared_privatized/grader.cpp" from "../../lab04_shared_privatized/grader.cpp" or an
// absolute path: named from the course's root (the folder of a lab, common/, grading/, sim/).
std::string course_path(const char* file) {
  std::string path(file);
  for (const char* top : {"/lab0", "/lab1", "/common/", "/grading/", "/sim/", "/solutions/"}) {
    const size_t at = path.rfind(top);
    if (at != std::string::npos) return path.substr(at + 1);
  }
  while (path.compare(0, 3, "../") == 0 || path.compare(0, 2, "./") == 0)
    path = path.substr(path[1] == '.' ? 3 : 2);
  return path;
}

class HistoReporter final : public Catch::StreamingReporterBase {
 public:
  using StreamingReporterBase::StreamingReporterBase;
  static std::string getDescription() {
    return "Each test's own messages and where its check failed, nothing else (CTest's tests)";
  }

  void noMatchingTestCases(Catch::StringRef spec) override {
    m_stream << "no test case matches " << spec << "\n";
  }
  void reportInvalidTestSpec(Catch::StringRef spec) override {
    m_stream << "not a test spec: " << spec << "\n";
  }

  void assertionEnded(const Catch::AssertionStats& stats) override {
    const Catch::AssertionResult& r = stats.assertionResult;
    const Catch::ResultWas::OfType type = r.getResultType();
    const std::string message(r.getMessage());  // a StringRef in newer Catch2 versions
    if (type == Catch::ResultWas::ExplicitSkip) {
      // The reason, indented, after "SKIPPED:" (grading/histo_grading/tests.py reads it).
      m_stream << "SKIPPED:\n" << indented(message) << "\n";
      return;
    }
    if (r.isOk() && type != Catch::ResultWas::Warning) return;
    const std::string where = location(r.getSourceInfo());
    if (type == Catch::ResultWas::Warning) {
      m_stream << "warning (" << where << "): " << message << "\n";
      return;
    }
    m_stream << "FAILED (" << where << "):\n";
    for (const Catch::MessageInfo& info : stats.infoMessages)
      if (info.message != message) m_stream << indented(info.message) << "\n";
    if (type == Catch::ResultWas::ThrewException)
      m_stream << "  threw: " << message << "\n";
    else if (type == Catch::ResultWas::FatalErrorCondition)
      m_stream << "  the program stopped: " << message << "\n";
    else if (r.hasMessage())
      m_stream << indented(message) << "\n";
    // The check itself, where it says something: a grader's own (a helper's CHECK(ok) says
    // nothing its messages did not).
    const bool helper = course_path(r.getSourceInfo().file).compare(0, 7, "common/") == 0;
    if (r.hasExpression() && !r.hasMessage() && (!helper || stats.infoMessages.empty()))
      m_stream << "  " << std::string(r.getExpressionInMacro()) << " is "
               << std::string(r.getExpandedExpression()) << "\n";
    m_stream << std::flush;
  }

  void testCaseEnded(const Catch::TestCaseStats& stats) override {
    const Catch::Counts& a = stats.totals.assertions;
    if (stats.totals.testCases.failed && a.total() == 0)
      m_stream << "FAILED (" << location(currentTestCaseInfo->lineInfo)
               << "): no check ran (every test must check something)\n";
    else if (stats.totals.testCases.failed)
      m_stream << "failed: " << a.failed << " of " << a.total() << " checks\n";
    else if (!stats.totals.testCases.skipped)
      m_stream << "passed (" << a.passed << " checks)\n";
    m_stream << std::flush;
    StreamingReporterBase::testCaseEnded(stats);
  }

 private:
  // A helper's own line (common/src/) says little: the test case that called it says more.
  std::string location(const Catch::SourceLineInfo& at) const {
    const std::string file = course_path(at.file);
    const Catch::SourceLineInfo* test = currentTestCaseInfo ? &currentTestCaseInfo->lineInfo : nullptr;
    if (test && file.compare(0, 7, "common/") == 0)
      return course_path(test->file) + ":" + std::to_string(test->line);
    return file + ":" + std::to_string(at.line);
  }
  static std::string indented(const std::string& text) {
    std::string out = "  ";
    for (char c : text) {
      out += c;
      if (c == '\n') out += "  ";
    }
    while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
    return out;
  }
};

CATCH_REGISTER_REPORTER("histo", HistoReporter)

int main(int argc, char* argv[]) {
  const int rc = Catch::Session().run(argc, argv);
  return g_failed ? 1 : rc;
}
