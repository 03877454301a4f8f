#!/usr/bin/env python3
"""CTest "grading.unit": the pieces of grading/histo_grading that decide a status by themselves,
on made-up inputs: what is taken from a submission, how an embedded file is found however it is
spelled, what a submission's code may use (its symbols, its source lines, and a few objects the
host compiler makes of made-up sources), how a dependency file is read, how a ThreadSanitizer report becomes "races (...)", what
of a compiler's messages a student sees, and the Nsight Compute mode's reading of ncu's CSV, its
grouping per count_cost call and its comparison with the simulator (GRADE_NCU=1), what each
engine grades the cost tests with by default, how results.json counts private tests (extra
credit) and says what counted the cost, what a run's summary line says it did not grade, and the
verdict the grader reaches from a test's run and Catch2 report (never from its exit code alone)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from histo_grading import batch, codecheck, engines, ncu, reads, results, sandbox, submissions, tests  # noqa: E402

LAB = "lab04_shared_privatized.cu"

# A ThreadSanitizer report as the sim-tsan preset prints it (frames shortened).
TSAN_REPORT = """==================
WARNING: ThreadSanitizer: data race (pid=2106)
  Read of size 4 at 0x7f7351dfe5f8 by thread T15:
    #0 lab04::histogram_shared_kernel(unsigned char const*, unsigned long, unsigned int*) lab04_shared_privatized/lab04_shared_privatized.cu:3 (lab04_student_sim_grader+0x2b8be)
    #1 histo_sim::launch_kernel<...>::{lambda(void*)#1}::_FUN(void*) sim/include/cuda_runtime.h:509 (lab04_student_sim_grader+0x2cc70)

  Previous write of size 4 at 0x7f7351dfe5f8 by thread T2:
    #0 lab04::histogram_shared_kernel(unsigned char const*, unsigned long, unsigned int*) lab04_shared_privatized/lab04_shared_privatized.cu:3 (lab04_student_sim_grader+0x2b8d0)

SUMMARY: ThreadSanitizer: data race lab04_shared_privatized/lab04_shared_privatized.cu:3 in lab04::histogram_shared_kernel
==================
"""


class TakingTheSource(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = Path(tmp.name)

    def sub(self, name):
        d = self.dir / name
        d.mkdir()
        return d

    def test_a_plain_file_is_taken(self):
        d = self.sub("alice")
        (d / "src").mkdir()
        (d / "src" / LAB).write_text("int x;\n")
        source, problem = submissions.take_source(d, LAB)
        self.assertEqual(problem, "")
        self.assertEqual(source.name, f"src/{LAB}")

    def test_a_link_is_refused_wherever_it_points(self):
        d = self.sub("link")
        (d / LAB).symlink_to("/etc/passwd")
        source, problem = submissions.take_source(d, LAB)
        self.assertIsNone(source)
        self.assertIn("is a symbolic link (to /etc/passwd)", problem)

    def test_a_file_in_a_linked_folder_is_refused(self):
        real = self.sub("real")
        (real / LAB).write_text("int x;\n")
        d = self.sub("linked")
        (d / "code").symlink_to(real)
        source, problem = submissions.take_source(d, LAB)
        self.assertIsNone(source)
        self.assertIn("in a folder that is a symbolic link (code ->", problem)

    def test_a_named_pipe_is_refused_unread(self):
        d = self.sub("fifo")
        os.mkfifo(d / LAB)
        source, problem = submissions.take_source(d, LAB)
        self.assertIsNone(source)
        self.assertIn("is a named pipe", problem)

    def test_too_large_or_binary_is_refused(self):
        d = self.sub("big")
        (d / LAB).write_bytes(b"x" * (submissions.SOURCE_LIMIT + 1))
        self.assertIn("more than the 1 MiB", submissions.take_source(d, LAB)[1])
        d = self.sub("binary")
        (d / LAB).write_bytes(b"\x7fELF\0\0\0")
        self.assertIn("is not text", submissions.take_source(d, LAB)[1])

    def test_one_renamed_copy_is_taken_two_are_not(self):
        d = self.sub("renamed")
        (d / "lab04_shared_privatized (1).cu").write_text("int x;\n")
        (d / "notes.txt").write_text("hi\n")
        source, problem = submissions.take_source(d, LAB)
        self.assertEqual(source.name, "lab04_shared_privatized (1).cu")
        (d / "lab04_shared_privatized (2).cu").write_text("int y;\n")
        source, problem = submissions.take_source(d, LAB)
        self.assertIsNone(source)
        self.assertIn("several candidates: lab04_shared_privatized (1).cu, lab04_shared_privatized (2).cu", problem)

    def test_missing_lists_what_was_received(self):
        d = self.sub("wrong")
        (d / "main.cu").write_text("int x;\n")
        (d / "README.md").write_text("hi\n")
        self.assertEqual(submissions.take_source(d, LAB)[1],
                         f"missing {LAB}; received: README.md, main.cu")


class StudentsAndTheirFolders(unittest.TestCase):
    def test_a_safe_name_is_its_own_folder(self):
        for name in ("alice", "slots", "grades.csv", "José Núñez", "a.b-c_d (2)", "students"):
            self.assertEqual(submissions.folder_name(name), name)
        self.assertEqual(submissions.student_dir("/out", "slots"), Path("/out/students/slots"))

    def test_what_is_not_a_safe_folder_name_is_escaped_one_to_one(self):
        cases = {".alice": "%2Ealice", "..": "%2E.", "a/b": "a%2Fb", "a\\b": "a%5Cb",
                 "a\nb": "a%0Ab", "\x1b[31m": "%1B[31m", "50%": "50%25", "": "%",
                 os.fsdecode(b"caf\xe9"): "caf%E9"}
        for name, folder in cases.items():
            self.assertEqual(submissions.folder_name(name), folder, repr(name))
        # Distinct names, distinct folders: the escape of one is never another's name.
        names = ["%2Ealice", ".alice", "50%25", "50%", "x" * 300, "x" * 299 + "y", "x" * 181 + "%%0"]
        folders = [submissions.folder_name(n) for n in names]
        self.assertEqual(len(set(folders)), len(names), folders)
        for f in folders:
            self.assertLessEqual(len(f.encode()), submissions.NAME_LIMIT)
            self.assertNotIn("/", f)
            self.assertFalse(f.startswith("."))

    def test_one_students_several_entries_are_none_taken(self):
        with tempfile.TemporaryDirectory() as tmp:
            d = Path(tmp)
            for name in ("alice", "Bob", "bob", "carol", ".git", "__MACOSX"):
                (d / name).mkdir()
                (d / name / LAB).write_text("int x;\n")
            (d / "alice.cu").write_text("int y;\n")
            (d / "dave.cu").write_text("int z;\n")
            (d / "._dave.cu").write_bytes(b"\0\0")
            found = dict(submissions.submissions_of(d))
            self.assertEqual(sorted(found), ["Bob", "alice", "bob", "carol", "dave"])
            for name, entries in (("alice", ["alice/", "alice.cu"]), ("bob", ["Bob/", "bob/"]),
                                  ("Bob", ["Bob/", "bob/"])):
                source, problem = submissions.take_source(found[name], LAB)
                self.assertIsNone(source)
                self.assertTrue(problem.startswith("several submissions for one student: "), problem)
                for entry in entries:
                    self.assertIn(entry, problem)
            self.assertEqual(submissions.take_source(found["carol"], LAB)[1], "")
            self.assertEqual(submissions.take_source(found["dave"], LAB)[1], "")


class EmbeddedFiles(unittest.TestCase):
    def test_incbin_however_spelled(self):
        for text in ['asm(".incbin \\"/etc/passwd\\"");',
                     'asm(".inc" "bin \\"/etc/passwd\\"");',            # joined literals
                     "char q = '\"'; asm(\"\\x2eincbin \\\"/etc/passwd\\\"\");",  # escapes, a quote char
                     'asm("\\151ncbin \\"/etc/passwd\\"");']:            # an octal escape
            self.assertEqual(reads.embedding(text), ("/etc/passwd", ".incbin in inline assembly"), text)

    def test_incbin_spelled_by_an_assembler_macro(self):
        # Inside a .macro, \\() joins what is around it: .inc\\()bin is .incbin.
        text = 'asm(".macro emb\\n.inc\\\\()bin \\"/etc/passwd\\"\\n.endm\\nemb");'
        self.assertEqual(reads.embedding(text), ("/etc/passwd", ".incbin in inline assembly"))

    def test_embed_and_include_directives(self):
        self.assertEqual(reads.embedding('#embed "/etc/passwd"\n'), ("/etc/passwd", "#embed"))
        self.assertEqual(reads.embedding('asm(".section .rodata\\n.include \\"/a.s\\"\\n");'),
                         ("/a.s", ".include in inline assembly"))

    def test_honest_code_embeds_nothing(self):
        for text in ['printf("include the tail: %d\\n", n);', "int x = 1; // \"a comment",
                     'asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));']:
            self.assertIsNone(reads.embedding(text), text)


class WhatCodeMayUse(unittest.TestCase):
    """codecheck.py: the allowlist by name, the submission's preprocessed lines, and objects that
    the host compiler makes of made-up sources."""

    def setUp(self):
        self.rules = codecheck.Rules("lab01", "c++")

    def refused(self, demangled, raw=None):
        return self.rules.allowed_reference(raw or demangled, demangled)

    def test_names_without_templates_and_parameters(self):
        self.assertEqual(codecheck.plain(
            "histo_sim::launch_kernel<unsigned char const*, unsigned long>(void (*)(unsigned char const*), dim3)"
            "::{lambda(void*)#1}::__invoke"), "histo_sim::launch_kernel::{lambda#1}::__invoke")
        self.assertEqual(codecheck.plain("std::__cxx11::basic_string<char>::_M_create"),
                         "std::basic_string::_M_create")
        self.assertEqual(codecheck.plain("std::operator<< <std::char_traits<char> >"), "std::operator<<")
        self.assertEqual(codecheck.subject("typeinfo for std::invalid_argument"), "std::invalid_argument")

    def test_what_a_launcher_needs_is_allowed(self):
        for name in ["cudaMalloc", "cudaMemcpyAsync", "cudaGetLastError", "cudaFuncSetAttribute",
                     "cudaOccupancyMaxActiveBlocksPerMultiprocessor", "__cudaLaunchKernel",
                     "__cudaPushCallConfiguration", "cudaGetDeviceProperties_v2",
                     "histo::prepare_output", "histo::throw_cuda_error",
                     "histo::resident_blocks_per_sm", "histo_sim::launch", "histo_sim::warp_collective",
                     "histo_sim::g_current", "memcpy", "strlen", "printf", "snprintf", "stderr",
                     "operator new", "operator delete", "__cxa_throw", "__cxa_guard_acquire",
                     "__cxa_atexit", "_Unwind_Resume", "__gxx_personality_v0",
                     "std::basic_string<char>::_M_create", "std::__throw_length_error",
                     "std::basic_ostringstream<char>::basic_ostringstream",
                     "vtable for __cxxabiv1::__class_type_info", "typeinfo for std::invalid_argument",
                     "typeinfo for unsigned int", "std::_Rb_tree_increment",
                     "__sanitizer_cov_trace_pc_guard", "__start___sancov_guards", "lab01::variants"]:
            self.assertIsNone(self.refused(name), name)

    def test_what_it_may_not_use_is_refused_with_a_reason(self):
        for name in ["fopen", "open", "write", "getenv", "setenv", "system", "fork", "execve",
                     "pthread_create", "signal", "sigaction", "exit", "_exit", "quick_exit", "atexit",
                     "dlopen", "dlsym", "syscall", "std::thread::_M_start_thread",
                     "std::basic_ifstream<char>::basic_ifstream", "std::filesystem::exists"]:
            kind, why = self.refused(name)
            self.assertEqual((kind, why), ("forbidden", codecheck.FORBIDDEN_WHY), name)
        for name in ["cudaMallocHost", "cudaHostAlloc", "cudaMallocManaged", "cudaHostRegister"]:
            self.assertIn("no host-visible memory", self.refused(name)[1], name)
        self.assertIn("only the CUDA runtime calls a launcher needs", self.refused("cudaDeviceReset")[1])
        for name in ["histo::reference_histogram", "histo::make_dataset", "histo::compare_bins",
                     "histo::grading_size_limit", "histo_sim::watch_host_writes",
                     "histo_sim::unwatch_host_writes", "Catch::AssertionHandler::handleExpr"]:
            self.assertEqual(self.refused(name), ("course", ""), name)

    def test_what_it_may_define(self):
        ok = [("_ZN5lab017segmentEv", "lab01::segment", False),
              ("_ZZN9histo_sim13launch_kernelIJPKhEJRS2_EEEvPFvDpT_E4dim3S7_mP11CUstream_stDpOT0_ENUlPvE_8__invokeES9_",
               "histo_sim::launch_kernel<unsigned char const*, unsigned char const*&>(void (*)(unsigned char const*), "
               "dim3, dim3, unsigned long, CUstream_st*, unsigned char const*&)::{lambda(void*)#1}::__invoke", True),
              # kernel<<<...>>>(args) as the simulator's wrapper writes it (c++filt -p's names)
              ("_ZN9histo_simmlIZN5lab0110launch_allEvEUlDpOT_E_JPKhEJS6_EEEvPFvDpT0_EONS_13PendingLaunchIT_JDpT1_EEE",
               "histo_sim::operator*<lab01::launch_all()::{lambda((auto:1&&)...)#1}, unsigned char const*>", True),
              ("_ZNK9histo_sim13ChevronConfigINS_6NoCallEEclIJRPKhEEENS_13PendingLaunchIS1_JDpT_EEEDpOS8_",
               "histo_sim::ChevronConfig<histo_sim::NoCall>::operator()<unsigned char const*&>", True),
              ("_ZNSt6vectorIjSaIjEE17_M_realloc_insertEv", "std::vector<unsigned int>::_M_realloc_insert", True),
              ("_Z58__device_stub__ZN5lab0126histogram_segmented_kernelEPKhmPjPKhmPj",
               "__device_stub__ZN5lab0126histogram_segmented_kernelEPKhmPj", False)]
        for raw, name, weak in ok:
            self.assertEqual(self.rules.allowed_definition(raw, name, weak), "", name)
        self.assertEqual(self.rules.allowed_definition("main", "main", False), "main")
        self.assertEqual(self.rules.allowed_definition("_ZN5histo18grading_size_limitEv",
                                                       "histo::grading_size_limit", False), "course")
        self.assertEqual(self.rules.allowed_definition("_ZN5histo11GuardedBinsIjE6poisonEv",
                                                       "histo::GuardedBins<unsigned int>::poison", True), "course")
        self.assertEqual(self.rules.allowed_definition("_Z6helperv", "helper", False), "other")
        self.assertEqual(self.rules.allowed_definition("helper", "helper", False), "other")
        if "memcmp" in self.rules.exports:  # where the C library could be read
            self.assertEqual(self.rules.allowed_definition("memcmp", "memcmp", False), "library")

    def test_assembly_and_attributes_on_the_submission_lines_only(self):
        pre = ('# 1 "/sys/include/x.h" 3\n__asm__ ("" : : : "memory");\n'
               '# 5 "/labs/lab01_naive.cu"\nint a;\n  asm volatile("");\n'
               '# 1 "/sys/include/y.h" 3\nextern int f() __asm__("g");\n')
        lines = codecheck.submission_lines(pre, "/labs/lab01_naive.cu")
        self.assertEqual([n for n, _ in lines], [5, 6])
        self.assertEqual(codecheck.check_source_text(lines, "lab01_naive.cu"),
                         "holds inline assembly (lab01_naive.cu:6)")
        for text, status in [
                ("__attribute__((constructor)) static void f() {}", "runs code outside the tests: a constructor (x.cu:3)"),
                ("[[gnu::destructor]] static void f() {}", "runs code outside the tests: a destructor (x.cu:3)"),
                ('static int v __attribute__((used, section(".init_array")));',
                 "places its code where it may not: the section attribute (x.cu:3)"),
                ('const char* s = "asm(constructor)"; // asm', "")]:
            self.assertEqual(codecheck.check_source_text([(3, text)], "x.cu"), status, text)

    def test_no_line_directive_nor_stray_hash_in_the_submission(self):
        directive = "hides where its lines are: a line directive (x.cu:{})"
        for text, line in [('#line 1 "/usr/include/stdio.h"\nasm("");', 1), ('  #  line 7', 1),
                           ('int a;\n# 1 "/usr/include/stdio.h" 1 3', 2), ('#1"x"', 1),
                           ('%: /* */ 4 "a"', 1), ('#/* c\n */line 4', 1), ("#\\\nline 4", 1),
                           ("#\\  \nline 4", 1), ("#li\\\nne 4", 1), ("??=line 4", 1),
                           ("int x = 0x1'2; char c = '/*';\n#line 5", 2),
                           ('const char* r = R"a("/*)a";\n#line 5', 2)]:
            self.assertEqual(codecheck.hidden_lines(text, "x.cu"), directive.format(line), text)
        # A # token that could print as a line marker in the preprocessor's output.
        for text, status in [('#define P #\nP 1 "x"', "a # in a macro's body (x.cu:1)"),
                             ('#define F(x) x\nF(%:) 1 "x"', "a %: outside a directive (x.cu:2)"),
                             ("x \\\n#line 3", "a # outside a directive (x.cu:2)")]:
            self.assertEqual(codecheck.hidden_lines(text, "x.cu"), "hides where its lines are: " + status)
        honest = ('#define S(x) #x\n#define C(a, b) a##b\n#include <cstdio>\n#pragma once\n'
                  "int x = 1'000;\nconst char* s = \"#line 1\";  // #line 2\n/* #1 step\n#line x */\n"
                  'const char* r = R"a(\n#line 3 "x"\n)a";\n#if 0\n#endif\n#define X a ## b\n')
        self.assertEqual(codecheck.hidden_lines(honest, "x.cu"), "")

    def test_a_raw_string_holds_no_line_marker(self):
        pre = ('# 1 "/labs/lab01_naive.cu"\nconst char* s = R"x(\n# 1 "/usr/include/stdio.h" 3\n'
               ')x"; asm("");\n')
        lines = codecheck.submission_lines(pre, "/labs/lab01_naive.cu")
        self.assertEqual([n for n, _ in lines], [1, 2, 3, 4])
        self.assertEqual(codecheck.check_source_text(lines, "x.cu"), "holds inline assembly (x.cu:3)")

    def test_the_simulators_variable_attribute_is_its_own(self):
        pre = ('# 1 "/sim/include/cuda_runtime.h" 1\n'
               '#define HISTO_SIM_CONSTANT_VARIABLE __attribute__((section("histo_constant"), used))\n'
               '# 1 "/labs/lab01_naive.cu" 2\n'
               'namespace lab01 {\n__attribute__((section("histo_constant"), used)) int k = 1;\n}\n')
        sub = "/labs/lab01_naive.cu"
        simulator = codecheck.simulator_attributes(pre, sub)
        self.assertEqual(simulator, ('__attribute__((section("histo_constant"),used))',))
        lines = codecheck.submission_lines(pre, sub)
        # The wrapper wrote the macro for __constant__: the simulator's.
        self.assertEqual(codecheck.check_source_text(
            lines, "x.cu", "namespace lab01 {\n__constant__ int k = 1;\n}\n", simulator), "")
        # The same attribute written by hand, or a second one on a line with one __constant__.
        refused = "places its code where it may not: the section attribute (x.cu:2)"
        self.assertEqual(codecheck.check_source_text(
            lines, "x.cu", 'namespace lab01 {\n__attribute__((section("histo_constant"), used)) int k = 1;\n}\n',
            simulator), refused)
        twice = [(2, '__attribute__((section("histo_constant"), used)) int k = 1; '
                     '__attribute__((section("histo_constant"), used)) int j = 1;')]
        self.assertEqual(codecheck.check_source_text(
            twice, "x.cu", "\n__constant__ int k = 1; HIDE int j = 1;\n", simulator), refused)
        other = [(2, '__attribute__((section(".init_array"), used)) int k = 1;')]
        self.assertEqual(codecheck.check_source_text(other, "x.cu", "\n__constant__ int k = 1;\n",
                                                     simulator), refused)

    def test_a_macro_that_changes_a_header_included_after_it(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        header = Path(tmp.name) / "vector.h"
        header.write_text("// private: not code\nclass V {\n private:\n  int n;\n};\n")
        sub = Path(tmp.name) / "lab01_naive.cu"
        pre = (f'# 1 "{sub}"\n#define BLOCK 256\n#define private public\n'
               f'# 1 "{header}" 1\nclass V {{\n public:\n  int n;\n}};\n# 4 "{sub}" 2\n')
        self.assertEqual(codecheck.check_macros(pre, sub, "lab01_naive.cu"),
                         "changes the code of a header it includes: the macro private (lab01_naive.cu:2)")
        # Undefined before the header, or defined after it: the header is its own.
        for order in (f'# 1 "{sub}"\n#define private public\n#undef private\n# 1 "{header}" 1\n',
                      f'# 1 "{header}" 1\nclass V {{}};\n# 2 "{sub}" 2\n#define private public\n'):
            self.assertEqual(codecheck.check_macros(order, sub, "lab01_naive.cu"), "", order)

    def test_the_cxx_library_by_where_it_comes_from(self):
        # GCC 13's <iostream> references std::ios_base_library_init where GCC 12's defines a
        # std::ios_base::Init object: both are the C++ library's, allowed by its namespace, as is
        # what libstdc++ exports outside it (operator new, typeinfo for int).
        allowed = ["_ZSt21ios_base_library_initv", "_ZNSt8ios_base4InitC1Ev", "_ZNSt8ios_base4InitD1Ev",
                   "_ZNSt6chrono3_V212steady_clock3nowEv", "_ZSt20__throw_length_errorPKc",
                   "_ZN9__gnu_cxx27__verbose_terminate_handlerEv", "_Znwm", "_ZdlPvm", "_ZTIi",
                   "_ZTVN10__cxxabiv117__class_type_infoE", "__cxa_atexit", "__cxa_guard_acquire",
                   "__gxx_personality_v0", "_Unwind_Resume", "__dynamic_cast", "sqrtf"]
        # What reaches the dynamic linker, raw system calls, files or threads stays refused,
        # whichever library exports it; so does a C function nobody listed (deny by default).
        refused = ["dlsym", "syscall", "process_vm_readv", "__cxa_thread_atexit", "_Unwind_ForcedUnwind",
                   "_Unwind_SetIP", "__enable_execute_stack", "_ZNSt10filesystem6existsERKNS_4pathE",
                   "_ZN9__gnu_cxx13stdio_filebufIcSt11char_traitsIcEEC1EiSt13_Ios_Openmodem",
                   "_ZNSt13random_device7_M_initERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
                   "_ZNSt6thread15_M_start_threadESt10unique_ptrINS_6_StateESt14default_deleteIS1_EEPFvvE",
                   "_ZNSt3__14__fs10filesystem8__statusERKNS1_4pathEPNS_10error_codeE"]
        names = codecheck.demangle(allowed + refused)
        for raw in allowed:
            self.assertIsNone(self.rules.allowed_reference(raw, names[raw]), (raw, names[raw]))
        for raw in refused:
            self.assertEqual(self.rules.allowed_reference(raw, names[raw])[0], "forbidden", (raw, names[raw]))
        self.assertEqual(self.refused("dlsym"), ("forbidden", codecheck.FORBIDDEN_WHY))
        self.assertEqual(self.refused("syscall"), ("forbidden", codecheck.FORBIDDEN_WHY))
        if "__divti3" in self.rules.libraries.cxx:  # where libgcc_s could be read
            self.assertIsNone(self.refused("__divti3"))

    def test_both_forms_of_the_iostream_initializer_in_an_object(self):
        # Both forms written out, so that any compiler makes both: GCC 12's static object (its
        # initializer runs before the tests, and may reach nothing else) and GCC 13's reference.
        source = ("#include <ios>\nnamespace std { void ios_base_library_init(); }\n"
                  "static std::ios_base::Init streams;\n"
                  "namespace lab01 {\nvoid start() { std::ios_base_library_init(); }\n}\n")
        honest = ("#include <iostream>\n#include <vector>\nnamespace lab01 {\n"
                  "int f(const std::vector<int>& v) { std::cout << v.at(0) << std::endl; return v[0]; }\n}\n")
        for compiler in self.compilers():
            self.assertEqual(self.compiled(source, compiler=compiler), "", compiler)
            for flags in [(), ("-std=c++20", "-O3", "-D_GLIBCXX_ASSERTIONS")]:
                self.assertEqual(self.compiled(honest, flags, compiler), "", (compiler, flags))
            self.assertTrue(self.compiled(
                "#include <dlfcn.h>\nnamespace lab01 {\nvoid* f(void* h) { return dlsym(h, \"system\"); }\n}\n",
                compiler=compiler).startswith("uses what a submission may not: calls dlsym (lab01_naive.cu"), compiler)
            self.assertTrue(self.compiled(
                "#include <unistd.h>\n#include <sys/syscall.h>\nnamespace lab01 {\n"
                "long f() { return syscall(SYS_getpid); }\n}\n",
                compiler=compiler).startswith("uses what a submission may not: calls syscall (lab01_naive.cu"), compiler)

    def compilers(self):
        found = [c for c in (shutil.which("g++"), shutil.which("clang++")) if c]
        if not found:
            self.skipTest("no host C++ compiler")
        return found

    def compiled(self, source, flags=(), compiler=None):
        compiler = compiler or shutil.which("g++") or shutil.which("c++")
        if not compiler:
            self.skipTest("no host C++ compiler")
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        src, obj = Path(tmp.name) / "lab01_naive.cu", Path(tmp.name) / "lab01_naive.o"
        src.write_text(source)
        subprocess.run([compiler, "-x", "c++", "-std=c++17", "-O2", *flags, "-c", str(src), "-o", str(obj)],
                       check=True, capture_output=True)
        return codecheck.check_object(obj, "lab01", src, "lab01_naive.cu", source, compiler)

    def test_objects_the_host_compiler_makes(self):
        cases = [
            ("#include <cstdio>\nnamespace lab01 {\nvoid f(const char* p) {\n  std::FILE* f = std::fopen(p, \"r\");\n"
             "  if (f) std::fclose(f);\n}\n}\n",
             "uses what a submission may not: calls fopen (lab01_naive.cu:4): " + codecheck.FORBIDDEN_WHY),
            ("int main() { return 0; }\n", "defines main (lab01_naive.cu:1)"),
            ("#include <cstdlib>\nstruct S { S() { setenv(\"A\", \"1\", 1); } };\nstatic S s;\n",
             "runs code outside the tests: a constructor that calls setenv (lab01_naive.cu"),
            ("namespace lab01 { void g(); }\nvoid helper() { lab01::g(); }\n",
             "defines helper outside namespace lab01 (lab01_naive.cu:2)"),
            # A function-local static with a destructor (registered with __cxa_atexit), the
            # registry pattern, std::cout and exceptions: allowed.
            ("#include <iostream>\n#include <stdexcept>\n#include <vector>\nnamespace lab01 {\n"
             "const std::vector<int>& table() { static const std::vector<int> t = {1, 2}; return t; }\n"
             "int f(int x) { if (x < 0) throw std::invalid_argument(\"x\"); std::cout << x << std::endl;"
             " return table()[0]; }\n}\n", ""),
        ]
        for source, status in cases:
            found = self.compiled(source)
            self.assertTrue(found.startswith(status) if status else found == "", (source, found))


class DependencyFiles(unittest.TestCase):
    def test_continuations_and_escaped_spaces(self):
        deps = reads.parse_depfile("a.o: a.cpp /usr/x.h \\\n  /p/with\\ space.h b.h\n")
        self.assertEqual(deps, ["a.cpp", "/usr/x.h", "/p/with space.h", "b.h"])


class Races(unittest.TestCase):
    def test_a_report_becomes_a_status_with_both_lines(self):
        code = b"__global__ void k() {\n  __shared__ unsigned s_bins[256];\n  s_bins[v]++;\n}\n"
        source = submissions.Source(LAB, code)
        status, summary = tests.thread_sanitizer_race("some output\n" + TSAN_REPORT, LAB, source)
        self.assertEqual(status, f"races (read at {LAB}:3 vs previous write at {LAB}:3)")
        self.assertIn(f"read of 4 bytes at {LAB}:3:   s_bins[v]++;", summary)
        self.assertIn(f"previous write of 4 bytes at {LAB}:3:   s_bins[v]++;", summary)
        self.assertLess(len(summary.splitlines()), 6)

    def test_no_report_no_race(self):
        self.assertIsNone(tests.thread_sanitizer_race("All tests passed\n", LAB, None))


class CompilerMessages(unittest.TestCase):
    def test_only_the_submissions_lines_are_shown(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        tree = Path(tmp.name)
        (tree / "lab04_shared_privatized").mkdir()
        mine = tree / "lab04_shared_privatized" / LAB
        mine.write_text("x\n")
        secret = tree / "secret.txt"
        secret.write_text("root:x:0:0\n")
        log = (f"In file included from {mine}:1:\n"
               f"{secret}:1:5: error: found ':' in nested-name-specifier\n"
               f"    1 | root:x:0:0\n"
               f"{mine}:2:3: error: expected ';'\n"
               f"    2 |   int y = 0\n")
        policy = reads.ReadPolicy(tree, "lab04_shared_privatized", tree / "out",
                                  submissions.Source("my copy.cu", b""))
        shown = reads.student_messages(log, policy, tree)
        self.assertNotIn("root:x", shown)
        self.assertIn("my copy.cu:2:3: error: expected ';'", shown)
        self.assertNotIn(str(tree), shown)


# ncu's --csv output as pass 1 of the Nsight Compute mode gets it (the columns of
# report/ncu/*.log): the program's own lines around it, a kernel before the first marker, two
# count_cost calls, the second launching two kernels, thousands separators.
NCU_HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
              '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
              '"Metric Value"\n')


def ncu_row(kid, kernel, block, grid, metric, value):
    return (f'"{kid}","6409","lab05_student_grader","127.0.0.1","{kernel}","1","7","{block}",'
            f'"{grid}","0","9.0","Command line profiler metrics","{metric}","","{value}"\n')


def ncu_fixture():
    rows = ["==PROF== Connected to process 6409 (lab05_student_grader)\n", NCU_HEADER]
    kernels = [("probe_kernel(int *)", "(1, 1, 1)", "(1, 1, 1)", {"launch__grid_size": "1"}),
               ("histo::histo_cost_begin()", "(1, 1, 1)", "(1, 1, 1)", {"launch__grid_size": "1"}),
               ("histogram_packed_kernel(const unsigned char *, unsigned long, unsigned int *)",
                "(64, 1, 1)", "(1029, 1, 1)",
                {"launch__grid_size": "1,029", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": "1,124",
                 "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": "2,000,000"}),
               ("histo::histo_cost_end()", "(1, 1, 1)", "(1, 1, 1)", {"launch__grid_size": "1"}),
               ("histo::histo_cost_begin()", "(1, 1, 1)", "(2, 1, 1)", {"launch__grid_size": "2"}),
               ("count_kernel(const unsigned char *)", "(256, 1, 1)", "(132, 2, 1)",
                {"launch__grid_size": "264", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum": "10"}),
               ("merge_kernel(unsigned int *)", "(256, 1, 1)", "(1, 1, 1)",
                {"launch__grid_size": "1", "l1tex__t_requests_pipe_lsu_mem_global_op_red.sum": "8",
                 "dram__bytes_read.sum": "n/a"}),
               ("histo::histo_cost_end()", "(1, 1, 1)", "(2, 1, 1)", {"launch__grid_size": "2"})]
    for kid, (name, block, grid, metrics) in enumerate(kernels):
        rows += [ncu_row(kid, name, block, grid, m, v) for m, v in metrics.items()]
    rows.append("==PROF== Disconnected from process 6409\n")
    return "".join(rows)


CALLS = "call 0 lab05/packed uniform 4194304\ncall 1 lab06/capstone degenerate 4194304\n"


class NsightComputeCounts(unittest.TestCase):
    def test_the_csv_becomes_kernels_in_launch_order(self):
        kernels = ncu.parse_csv(ncu_fixture())
        self.assertEqual([k["name"] for k in kernels][:3],
                         ["probe_kernel", "histo::histo_cost_begin", "histogram_packed_kernel"])
        packed = kernels[2]
        self.assertEqual((packed["grid"], packed["block"]), (1029, 64))
        self.assertEqual(packed["metrics"]["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"], 2e6)
        self.assertEqual(kernels[5]["grid"], 264)  # all dimensions
        self.assertNotIn("dram__bytes_read.sum", kernels[6]["metrics"])  # "n/a" is no value

    def test_kernels_are_grouped_per_call_between_their_markers(self):
        groups = ncu.group(ncu.parse_csv(ncu_fixture()), ncu.parse_calls(CALLS))
        self.assertEqual([g["key"] for g in groups],
                         ["lab05/packed uniform 4194304", "lab06/capstone degenerate 4194304"])
        self.assertEqual(groups[0]["kernels"], ["histogram_packed_kernel"])  # not the probe
        self.assertEqual(groups[1]["kernels"], ["count_kernel", "merge_kernel"])
        self.assertEqual(groups[1]["metrics"]["launch__grid_size"], 265)  # summed over kernels
        self.assertEqual(groups[1]["metrics"]["l1tex__t_requests_pipe_lsu_mem_global_op_red.sum"], 18)
        text = ncu.format_counts(groups)
        self.assertIn("call lab06/capstone degenerate 4194304 2\n", text)
        self.assertIn("  l1tex__t_requests_pipe_lsu_mem_global_op_red.sum 18\n", text)
        self.assertIn("call lab05/packed uniform 4194304 1\n  l1tex__data_bank_conflicts", text)

    def test_a_call_without_its_markers_is_an_error_that_names_it(self):
        # The run stopped during the second call: its end marker (launch 7) is missing.
        text = "".join(l for l in ncu_fixture().splitlines(True) if not l.startswith('"7"'))
        with self.assertRaisesRegex(ncu.NcuError, r"no complete group of kernels for call 1 "
                                                  r"\(lab06/capstone degenerate 4194304\)"):
            ncu.group(ncu.parse_csv(text), ncu.parse_calls(CALLS))
        with self.assertRaisesRegex(ncu.NcuError, "markers for calls \\[1\\]"):
            ncu.group(ncu.parse_csv(ncu_fixture()), ncu.parse_calls(CALLS.splitlines()[0]))

    def test_only_metrics_this_ncu_knows_are_asked_for(self):
        query = '"Metric Name","Metric Type"\n"l1tex__t_requests_pipe_lsu_mem_global_op_ld","Counter"\n'
        self.assertEqual(ncu.known_metrics(["launch__grid_size", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
                                            "lts__t_requests_op_red.sum"], query),
                         ["launch__grid_size", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"])
        self.assertIn("launch__grid_size", ncu.PERF_METRICS)
        self.assertNotIn("gpu__time_duration.sum", ncu.PERF_METRICS)

    def test_pass_1_asks_for_every_metric_count_cost_reads(self):
        source = (Path(__file__).resolve().parents[2] / "common" / "src" / "perf.cpp").read_text()
        read = set(re.findall(r'"((?:launch|l1tex|smsp|lts|dram)__[a-z_]+\.[a-z]+)"', source))
        self.assertTrue(read, "perf.cpp names no metric")
        self.assertEqual(sorted(read - set(ncu.PERF_METRICS)), [])


def perf_line(counter, value, verdict, data, where):
    return f"[perf] {counter} = {value} (bound: at most 0.02, {verdict}) on {data}; counted {where}\n"


SIM = "in the CPU simulator with the NVIDIA H200's shape"
GPU = "by Nsight Compute on the NVIDIA H200"
CONFLICTS = "shared bank conflicts per shared load or store wavefront"


class SimulatorAgainstGpu(unittest.TestCase):
    def test_check_costs_line_is_read(self):
        out = ("Filters: cost: x\n" + perf_line(CONFLICTS, "0.000562", "met", "uniform, 4194304 bytes", GPU)
               + "All tests passed\n")
        (line,) = ncu.perf_lines(out, "lab05.student: cost: x")
        self.assertEqual((line["counter"], line["value"], line["kind"], line["bound"], line["verdict"]),
                         (CONFLICTS, 0.000562, "at most", 0.02, "met"))
        self.assertEqual((line["data"], line["where"]), ("uniform, 4194304 bytes", GPU))

    def test_verdicts_are_compared_per_test_counter_and_input(self):
        sim = ncu.perf_lines(perf_line(CONFLICTS, "0", "met", "uniform, 4194304 bytes", SIM) +
                             perf_line(CONFLICTS, "0", "met", "degenerate, 4194304 bytes", SIM),
                             "lab05.student.sim: cost: packed")
        gpu = ncu.perf_lines(perf_line(CONFLICTS, "0.0005", "met", "uniform, 4194304 bytes", GPU) +
                             perf_line(CONFLICTS, "0.25", "missed", "degenerate, 4194304 bytes", GPU),
                             "lab05.student: cost: packed")
        rows = ncu.compare(sim, gpu)
        self.assertEqual([(r["data"], r["agree"]) for r in rows],
                         [("degenerate, 4194304 bytes", False), ("uniform, 4194304 bytes", True)])
        (bad,) = ncu.disagreements(rows)
        self.assertEqual(bad["test"], "cost: packed")
        self.assertIn("the simulator met the bound, the GPU missed it", bad["note"])
        self.assertIn("values differ by +0.25", bad["note"])
        table = ncu.describe(rows)
        self.assertIn("disagree: cost: packed (degenerate, 4194304 bytes)", table)

    def test_a_bound_counted_on_one_side_only_says_why(self):
        gpu = ncu.perf_lines(perf_line(CONFLICTS, "0", "met", "uniform, 4194304 bytes", GPU), "t: c")
        (row,) = ncu.compare([], gpu, "the counters need the lab sources compiled by Clang")
        self.assertIsNone(row["agree"])
        self.assertEqual(row["note"], "not counted by the simulator: the counters need the lab "
                                      "sources compiled by Clang")


class NsightComputeMode(unittest.TestCase):
    def grade(self, gpus):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        subs = Path(tmp.name) / "subs"
        (subs / "alice").mkdir(parents=True)
        (subs / "alice" / LAB).write_text("int x;\n")
        # An empty PATH: no ncu, whatever this machine has (GRADE_GPUS says what GPUs there are).
        (Path(tmp.name) / "bin").mkdir()
        env = dict(os.environ, GRADE_NCU="1", GRADE_GPUS=gpus, PATH=str(Path(tmp.name) / "bin"))
        grade = Path(__file__).resolve().parents[1] / "grade.py"
        return subprocess.run([sys.executable, str(grade), "run", "lab04", str(subs),
                               str(Path(tmp.name) / "out")], capture_output=True, text=True,
                              env=env, timeout=120)

    def test_without_a_gpu_or_ncu_it_stops_with_one_clear_error(self):
        proc = self.grade("none")
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("GRADE_NCU=1: the [perf] tests count with Nsight Compute on a GPU, and no "
                      "GPU is visible", proc.stderr)
        self.assertIn("ncu (Nsight Compute) is not on PATH", proc.stderr)
        self.assertNotIn("preparing", proc.stdout)  # nothing graded some other way instead

    def test_with_a_gpu_but_no_ncu_it_says_so(self):
        proc = self.grade("0")
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("GRADE_NCU=1:", proc.stderr)
        self.assertIn("ncu (Nsight Compute) is not on PATH", proc.stderr)
        self.assertNotIn("no GPU is visible", proc.stderr)



CASE = {"name": "lab01.student.sim: counts", "exe": "g", "args": ["counts", "--warn", "NoAssertions"],
        "timeout": 60, "env": {}}


def report(cases, successes=3, failures=0, skips=0, cut=False):
    body = "".join(cases)
    xml = (f'<?xml version="1.0" encoding="UTF-8"?>\n<Catch2TestRun name="g">{body}'
           f'<OverallResults successes="{successes}" failures="{failures}" expectedFailures="0" '
           f'skips="{skips}"/></Catch2TestRun>\n')
    return xml[:len(xml) // 2] if cut else xml


def case_xml(name="counts", success=True, skips=0, inner=""):
    return (f'<TestCase name="{name}" tags="[gpu]" filename="/slot/lab01/grader.cpp" line="9">{inner}'
            f'<OverallResult success="{"true" if success else "false"}" skips="{skips}"/></TestCase>')


class TheVerdict(unittest.TestCase):
    """tests.judge: what a run of one expected test case is worth."""

    def judge(self, rc, xml, skips=None, output=b""):
        r = sandbox.Result(returncode=rc, output=output, output_bytes=len(output),
                           report=xml.encode() if isinstance(xml, str) else xml)
        return tests.judge(CASE, r, skips if skips is not None else {}, lambda f: f)

    def test_a_whole_report_of_the_expected_case_passes(self):
        self.assertEqual(self.judge(0, report([case_xml()]))["result"], "passed")

    def test_exit_code_zero_without_a_report_fails(self):
        t = self.judge(0, b"")
        self.assertEqual(t["result"], "failed")
        self.assertIn("without the grader's report", t["output"])

    def test_a_forged_console_output_is_not_a_report(self):
        t = self.judge(0, b"", output=b"All tests passed (12 assertions in 1 test case)\n")
        self.assertEqual(t["result"], "failed")

    def test_a_report_cut_short_fails(self):
        self.assertEqual(self.judge(0, report([case_xml()], cut=True))["result"], "failed")

    def test_a_report_of_another_case_or_of_several_fails(self):
        self.assertIn("not the one expected", self.judge(0, report([case_xml("other")]))["output"])
        self.assertEqual(self.judge(0, report([case_xml(), case_xml("extra")]))["result"], "failed")

    def test_no_assertion_fails(self):
        t = self.judge(0, report([case_xml()], successes=0))
        self.assertEqual(t["result"], "failed")
        self.assertIn("no check", t["output"])

    def test_a_failed_check_fails_even_with_exit_code_zero(self):
        xml = report([case_xml(success=False, inner='<Expression success="false" type="REQUIRE" '
                               'filename="/slot/lab01/grader.cpp" line="51"><Original>grid &gt;= 1'
                               '</Original><Expanded>0 &gt;= 1</Expanded></Expression>')], failures=1)
        t = self.judge(0, xml)
        self.assertEqual(t["result"], "failed")
        self.assertIn("/slot/lab01/grader.cpp:51: REQUIRE( grid >= 1 ) failed: 0 >= 1", t["output"])

    def test_a_skip_counts_only_where_the_course_skips_too(self):
        xml = report([case_xml(success=True, skips=1, inner='<Skip filename="g.cpp" line="3">'
                               'too large</Skip>')], successes=0, skips=1)
        self.assertEqual(self.judge(4, xml, skips={CASE["name"]: "too large"})["result"], "skipped")
        t = self.judge(4, xml, skips={})
        self.assertEqual(t["result"], "failed")
        self.assertIn("not a pass", t["output"])

    def test_a_crash_and_a_time_limit_fail(self):
        self.assertTrue(self.judge(-11, report([case_xml()])).get("crashed"))
        r = sandbox.Result(timed_out=True)
        self.assertTrue(tests.judge(CASE, r, {}, str).get("timed out"))

    def test_a_private_test_shows_neither_its_cases_nor_what_the_program_printed(self):
        inner = ('<Expression success="false" type="REQUIRE" filename="/slot/p.cpp" line="5">'
                 '<Original>report.empty()</Original><Expanded>dataset text, n 100003</Expanded>'
                 '</Expression><StdOut>n=100003 offset=3</StdOut>')
        xml = report([case_xml(success=False, inner=inner)], failures=1)
        r = sandbox.Result(returncode=1, output=b"launcher: n=100003\n", output_bytes=19, report=xml.encode())
        private = {**CASE, "labels": ["lab01", "sim", "private"]}
        t = tests.judge(private, r, {}, str)
        self.assertEqual(t["result"], "failed")
        self.assertNotIn("100003", t["output"])
        self.assertIn("private test", t["output"])
        # The same run of a public test shows both.
        self.assertIn("100003", tests.judge(CASE, r, {}, str)["output"])


class TheSecretSeed(unittest.TestCase):
    """batch.grading_seed: the run's inputs come from a seed only the grader knows."""

    def seed(self, **env):
        clean = {k: v for k, v in os.environ.items() if not k.startswith("GRADE_SEED")}
        with mock.patch.dict(os.environ, {**clean, **env}, clear=True):
            return batch.grading_seed()

    def test_drawn_anew_per_run_unless_the_instructor_gives_it(self):
        drawn = {self.seed() for _ in range(4)}
        self.assertEqual(len(drawn), 4)
        self.assertTrue(all(0 < s < 2 ** 32 for s in drawn))
        self.assertEqual(self.seed(GRADE_SEED="12345"), 12345)
        with tempfile.NamedTemporaryFile("w") as f:
            f.write("777\n"), f.flush()
            self.assertEqual(self.seed(GRADE_SEED_FILE=f.name), 777)
        with self.assertRaises(SystemExit):
            self.seed(GRADE_SEED="lab01")

    def test_tests_get_it_at_run_time_with_their_messages_told_to_hide_it(self):
        g = SimpleNamespace(sandbox=SimpleNamespace(mode="bwrap"), preset="sim", rng_seed=4242)
        self.assertEqual(tests.test_env(g, None, Path("/s"))["HISTO_SECRET_SEED"], "1")


def engine_args(**given):
    args = dict(engine=None, preset=None, labels=None, gpus=None, build_slots=1, ncu=False, perf=None)
    args.update(given)
    return SimpleNamespace(**args)


class CostEverywhere(unittest.TestCase):
    """Every engine that runs kernels grades the cost tests, by default."""

    def settings(self, clang, ncu, **given):
        which = lambda name: ("/usr/bin/" + name) if (name == "ncu" and ncu) else None  # noqa: E731
        env = {k: v for k, v in os.environ.items() if not k.startswith("GRADE_") and k != "CXX"}
        with mock.patch.dict(os.environ, env, clear=True), \
                mock.patch.object(engines, "find_clang", return_value="/usr/bin/clang++" if clang else None), \
                mock.patch.object(engines.shutil, "which", side_effect=which):
            return engines.settings(engine_args(**given))

    def test_the_gpu_engine_grades_cost_on_the_simulators_counters_where_clang_is(self):
        s = self.settings(clang=True, ncu=True, gpus="0")
        self.assertEqual((s.engine, s.perf), ("gpu", "sim"))
        self.assertEqual(s.labels, ["cpu|gpu|perf"])
        self.assertTrue(s.simulator_twin)
        self.assertIn("simulator's counters", s.cost_counted_by)
        # The GPU grader's cost tests are left out, the simulator's are not.
        self.assertTrue(re.search(s.exclude, "lab06.student: cost: the capstone's lane copies"))
        self.assertFalse(re.search(s.exclude, "lab06.student.sim: cost: the capstone's lane copies"))

    def test_without_clang_it_grades_cost_with_nsight_compute(self):
        s = self.settings(clang=False, ncu=True, gpus="0")
        self.assertEqual((s.perf, s.ncu, s.labels, s.exclude), ("ncu", True, ["cpu|gpu"], ""))
        self.assertFalse(s.simulator_twin)  # no Clang: nothing to compare with
        self.assertEqual(s.cost_counted_by, "Nsight Compute on the GPU")

    def test_with_neither_it_stops_saying_what_to_install(self):
        with self.assertRaises(SystemExit) as stop:
            self.settings(clang=False, ncu=False, gpus="0")
        self.assertIn("install clang", str(stop.exception))
        self.assertIn("--perf none", str(stop.exception))

    def test_the_sim_engine_counts_and_a_sanitizer_preset_does_not(self):
        self.assertEqual(self.settings(clang=False, ncu=False, gpus="none").perf, "sim")
        self.assertEqual(self.settings(clang=True, ncu=False, gpus="none", preset="sim-tsan").perf, "none")
        self.assertEqual(self.settings(clang=True, ncu=False, gpus="none", engine="cpu").perf, "")

    def test_perf_none_is_said(self):
        s = self.settings(clang=True, ncu=True, gpus="0", perf="none")
        self.assertEqual((s.perf, s.labels), ("none", ["cpu|gpu"]))
        self.assertIn("NOT graded", s.describe())
        s = self.settings(clang=True, ncu=False, gpus="none", perf="none")
        self.assertTrue(re.search(s.exclude, "lab04.student.sim: cost: loads"))
        self.assertIn("--perf none", s.why_not_graded("lab04.student.sim: cost: loads", ["sim"], []))

    def test_a_twin_of_a_graded_test_is_not_listed_as_not_graded(self):
        s = self.settings(clang=True, ncu=False, gpus="0")
        expected = ["lab06.student: histogram_merge matches the CPU reference on every dataset",
                    "lab06.student.sim: cost: the capstone reads the input as 16-byte vectors"]
        self.assertEqual(s.why_not_graded("lab06.student.sim: histogram_merge matches the CPU "
                                          "reference on every dataset", ["sim"], expected), "")
        self.assertEqual(s.why_not_graded("lab06.student: cost: the capstone reads the input as "
                                          "16-byte vectors", ["gpu", "perf"], expected), "")
        self.assertIn("not run by engine gpu",
                      s.why_not_graded("lab06.student.sim: other", ["sim"], expected))


class ExtraCreditAndCost(unittest.TestCase):
    def grading(self, perf="sim"):
        settings = SimpleNamespace(perf=perf, engine_name="simulator",
                                   cost_counted_by=engines.COUNTED_BY.get(perf, ""))
        points = {"default": 1.0, "visibility": "visible",
                  "tests": [{"pattern": "*: cost: *", "points": 2}]}
        return SimpleNamespace(lab="lab04", points=points, settings=settings, not_selected={},
                               engine="sim", preset="sim", labels=["cpu|sim"], key="k" * 64, sandbox=None, rng_seed=1,
                               course_paths=lambda text: text)

    def test_private_tests_are_extra_credit_and_the_cost_says_what_counted_it(self):
        record = {"submission": "s", "built": True, "status": []}
        made = [{"name": "lab04.student.sim: a kernel", "result": "passed", "output": ""},
                {"name": "lab04.student.sim: cost: loads", "result": "failed", "output": ""},
                {"name": "lab04.student.sim: private: edges", "result": "passed", "output": ""}]
        out = results.results_json(self.grading(), record, made, None, 1.0)
        extra = out["extra_data"]
        self.assertEqual((out["score"], extra["max_score"]), (2.0, 3.0))
        self.assertEqual(extra["extra_credit"]["score"], 1.0)
        private = next(t for t in out["tests"] if "private" in t["name"])
        self.assertEqual((private["score"], private["max_score"], private["tags"]),
                         (1.0, 0.0, ["extra_credit"]))
        self.assertIn("simulator's counters", extra["cost_counted_by"])
        self.assertIn("counted by the CPU simulator's counters", out["output"])
        self.assertIn("Extra credit", out["output"])

    def test_the_summary_line_counts_cost_tests_graded_on_nsight_compute_as_graded(self):
        # They skip in the skeleton's plain run, and GRADE_NCU=1 grades them again on the GPU.
        name = "lab06.student: cost: the capstone reads the input as 16-byte vectors"
        g = SimpleNamespace(settings=SimpleNamespace(describe=lambda: "GPUs"), not_selected={},
                            skipped_here={name: "the [perf] tests count in the CPU simulator"},
                            perf_cases=[{"name": name}])
        self.assertEqual(batch.Grading.summary(g), "graded with GPUs")
        g.perf_cases = []
        self.assertIn("not graded, per submission: 1 test(s)", batch.Grading.summary(g))

    def test_cost_tests_nsight_compute_did_not_count_fail_saying_so(self):
        record = {"submission": "s", "built": True, "status": [],
                  "ncu": {"error": "pass 1 failed", "disagree": []}}
        made = [{"name": "lab04.student: a kernel", "result": "passed", "output": ""},
                {"name": "lab04.student: cost: loads", "result": "skipped", "output": "x"}]
        out = results.results_json(self.grading("ncu"), record, made, None, 1.0)
        self.assertEqual((out["score"], out["extra_data"]["max_score"]), (1.0, 3.0))
        cost = next(t for t in out["tests"] if "cost" in t["name"])
        self.assertIn("NOT COUNTED", cost["output"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
