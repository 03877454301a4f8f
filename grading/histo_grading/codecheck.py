"""What a submission's code may use, checked on its compiled object file(s) and its source
before the grader is linked with it (CURRICULUM.md section 8).

    check_build(build, submission, source) -> str

`build` is a build slot's build folder once the student's library target is built (it holds
compile_commands.json); `submission` is the path of the student's .cu in the slot's tree;
`source` is the submissions.Source taken (its name is how the student knows the file). Returns
"" or one status line that names the symbol and the source line, e.g.
    uses what a submission may not: calls fopen (lab01_naive.cu:57): no files, processes, environment, signals, exit or dynamic loading
    defines main (lab01_naive.cu:3)
    runs code outside the tests: a constructor (lab01_naive.cu:12)
    calls the course's host code: histo::reference_histogram (lab01_naive.cu:40)
    holds inline assembly (lab01_naive.cu:8)
Every object that compiles the submission is checked: nvcc's host object (GPU builds) and the
simulator's (its generated wrapper sim_sources/<name>_<hash>.cpp, compiled by clang++ or g++).

The rules:
- The source, as the compiler sees it after preprocessing (-E -dD; nvcc: its host and device
  passes, as `nvcc -dryrun` lists them), holds no `asm` (nor `__asm__`) on the submission's own
  lines (system headers' own are theirs), and no attribute that places code where the loader
  runs it or in sections of its choosing (constructor, destructor, section, alias, ifunc,
  weakref, naked, target_clones, init_priority), nor one that turns its instrumentation off
  (no_sanitize..., disable_sanitizer_instrumentation), but the simulator's own for a __device__ or
  __constant__ variable. A macro it defines names nothing in a header it includes after the
  definition (`#define private public`): the headers' inline code in its object is the headers'
  own. Which lines are the submission's is told by the preprocessor's line markers, so its
  physical text holds no line directive and no # that could print as one (hidden_lines).
- Its code lies only in .text (and .init/.fini, below).
- Every symbol the object references and does not define is allowed by what it is: the CUDA
  runtime calls a launcher needs, the simulator's runtime that kernels and launches use, the
  histo:: launch helpers (lists of the course's own names); the C++ standard library and its
  runtime, by where a name comes from (namespace std::, __cxxabiv1::, __gnu_cxx::, or exported
  by the libstdc++ and libgcc_s the compiler links, `$CXX -print-file-name=...`, read with
  nm -D), except its parts that reach files, threads, the environment or the process's exit
  (STD_FORBIDDEN) and the unwinder's calls that move control (RUNTIME_FORBIDDEN); the C
  library by name, deny by default (C_ALLOWED: memory, strings, numbers, formatting to stdout
  and stderr or into memory; and all of libm), since libc exports its refused functions too.
  Anything else is refused: files, processes and threads, the environment, signals, exit,
  dynamic loading, raw system calls, host-visible device memory, the course's host code (the
  CPU reference, datasets, the graders' helpers), other CUDA calls. No rule names a libstdc++
  symbol, so a new compiler's headers need no change here (GCC 13's <iostream> references
  std::ios_base_library_init where GCC 12's defines a std::ios_base::Init). nvcc's own
  references are told apart by where they are: atexit in its fatbinary registration, exit(1) as
  the host body of a __device__ function.
- Every global symbol it defines is the lab's own (labNN::..., nvcc's __device_stub__ of its
  kernels), or a weak C++ template or inline instantiation that is not the course's or Catch2's
  beyond the launch helpers' own templates; never `main`, a C library function (an extern "C"
  memcmp would be the grader's), a strong definition of a C++ library function (operator new),
  what the lab's other files (its registry) define, or an ifunc. The graders are linked with the
  course's libraries before the lab's, so where the course defines the same instantiation the
  linker keeps the course's copy.
- Nothing runs outside the tests: .init_array/.ctors/.preinit_array/.fini_array/.dtors/.init/
  .fini entries only for what the toolchain itself generates, each checked to reach nothing
  else: nvcc's registration of the fatbinary (__sti____cudaRegisterAll, whose atexit
  unregisters it), the coverage hooks' module constructor of the simulator's traced build (and
  a sanitizer's), and the <iostream> initializer of libstdc++ before GCC 13 (a static
  std::ios_base::Init, which may reach only its own constructor, destructor and __cxa_atexit:
  what a submission's own static objects do is refused). A function-local
  static object with a destructor registers it through __cxa_atexit: allowed (the pattern of a
  lab's registry); its code is checked like the rest, and it runs only after the tests' report
  is complete.

Lines come from the object's line tables where it has them (the simulator's Clang build), else
from the source text; the symbol is always named, demangled.
"""
import functools
import os
import re
import shlex
import subprocess
import tempfile
from pathlib import Path

from .reads import compile_commands_for, without_outputs

TOOL_TIMEOUT = 120  # seconds for one binutils or preprocessor run

# ---- The allowlist -----------------------------------------------------------------------------

# CUDA runtime calls a launcher may make: device memory, memset/memcpy, streams, events, errors,
# device attributes, occupancy, function attributes, launches. Names without nvcc's _v2 / _ptds /
# _ptsz suffixes.
CUDA_ALLOWED = {
    "cudaMalloc", "cudaFree", "cudaMallocAsync", "cudaFreeAsync", "cudaMallocPitch",
    "cudaMemset", "cudaMemsetAsync", "cudaMemset2D", "cudaMemset2DAsync",
    "cudaMemcpy", "cudaMemcpyAsync", "cudaMemcpy2D", "cudaMemcpy2DAsync",
    "cudaMemcpyToSymbol", "cudaMemcpyToSymbolAsync", "cudaMemcpyFromSymbol",
    "cudaMemcpyFromSymbolAsync", "cudaGetSymbolAddress", "cudaGetSymbolSize",
    "cudaMemGetInfo", "cudaPointerGetAttributes",
    "cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority",
    "cudaStreamDestroy", "cudaStreamSynchronize", "cudaStreamQuery", "cudaStreamWaitEvent",
    "cudaStreamGetFlags", "cudaStreamGetPriority", "cudaDeviceGetStreamPriorityRange",
    "cudaEventCreate", "cudaEventCreateWithFlags", "cudaEventDestroy", "cudaEventRecord",
    "cudaEventRecordWithFlags", "cudaEventSynchronize", "cudaEventQuery", "cudaEventElapsedTime",
    "cudaGetLastError", "cudaPeekAtLastError", "cudaGetErrorName", "cudaGetErrorString",
    "cudaGetDevice", "cudaGetDeviceCount", "cudaGetDeviceProperties", "cudaDeviceGetAttribute",
    "cudaDeviceSynchronize", "cudaRuntimeGetVersion", "cudaDriverGetVersion",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
    "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
    "cudaOccupancyMaxPotentialBlockSize", "cudaOccupancyMaxPotentialBlockSizeWithFlags",
    "cudaOccupancyAvailableDynamicSMemPerBlock",
    "cudaFuncGetAttributes", "cudaFuncSetAttribute", "cudaFuncSetCacheConfig",
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel",
    # What nvcc's generated host code calls: kernel stubs and the fatbinary's registration.
    "__cudaPushCallConfiguration", "__cudaPopCallConfiguration", "__cudaLaunchKernel",
    "__cudaGetKernel", "__cudaInitModule", "__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd",
    "__cudaRegisterFunction", "__cudaRegisterVar", "__cudaUnregisterFatBinary",
}
# Memory the host can touch: what would let a kernel count into host memory or the host read
# the device's.
CUDA_HOST_VISIBLE = {
    "cudaMallocManaged", "cudaMallocHost", "cudaHostAlloc", "cudaHostRegister",
    "cudaHostUnregister", "cudaHostGetDevicePointer", "cudaHostGetFlags", "cudaFreeHost",
    "cudaMemPrefetchAsync", "cudaMemAdvise", "cudaMallocFromPoolAsync",
    "__cudaRegisterManagedVar",
}

# The simulator's runtime (sim/include/cuda_runtime.h): what kernels and launches (kernel<<<>>>
# as its wrapper writes them) call. Every histo_sim:: name that header spells out is added to
# these (sim_names()), so a kernel-side addition to the simulator needs no change here.
SIM_ALLOWED = {"histo_sim::launch", "histo_sim::syncthreads", "histo_sim::warp_collective",
               "histo_sim::trace_atomic", "histo_sim::traced_load", "histo_sim::g_current",
               "histo_sim::g_block_idx", "histo_sim::g_block_dim", "histo_sim::g_grid_dim",
               "histo_sim::g_dynamic_shared"}

# The histo:: launch helpers (launch.hpp, cuda_check.hpp, bits.hpp, device_buffer.hpp). Not the
# CPU reference, datasets, grading, diagnosis, perf, timing or Catch2 support.
HISTO_ALLOWED = {"histo::prepare_output", "histo::device_sm_count", "histo::resident_blocks_per_sm",
                 "histo::forget_device_cache", "histo::shared_optin_bytes",
                 "histo::check_launch_shape", "histo::LaunchShape", "histo::ceil_div",
                 "histo::throw_cuda_error", "histo::CudaError", "histo::device_alloc",
                 "histo::DeviceBuffer", "histo::lowest_set_bit", "histo::set_bit_count",
                 "histo::min_of", "histo::max_of", "histo::Variant"}

# The C library is allowed by name, deny by default: every libc function that reaches files,
# processes, the environment, signals, the dynamic linker or raw file descriptors is exported by
# the same library as memcpy, so where a name comes from says nothing here. Allowed: memory,
# strings, numbers, formatting to stdout/stderr or into memory (no FILE* other than stdout and
# stderr can be had: fopen, fdopen, tmpfile and popen are refused), errno, time of day,
# assertions and abort (a crash, never a pass); and all of libm (shared_library_exports).
C_ALLOWED = {
    "memcpy", "memmove", "memset", "memcmp", "memchr", "memrchr", "malloc", "calloc", "realloc",
    "free", "aligned_alloc", "posix_memalign", "strlen", "strnlen", "strcmp", "strncmp", "strcpy",
    "strncpy", "strcat", "strncat", "strchr", "strrchr", "strstr", "strspn", "strcspn",
    "strpbrk", "strtok", "strtok_r", "strdup", "strndup", "strerror", "strtol", "strtoul",
    "strtoll", "strtoull", "strtod", "strtof", "strtold", "atoi", "atol", "atoll", "atof", "abs",
    "labs", "llabs", "div", "ldiv", "lldiv", "qsort", "bsearch", "rand", "srand", "toupper",
    "tolower", "isalpha", "isdigit", "isspace", "isalnum", "isupper", "islower", "isprint",
    "isxdigit", "__ctype_b_loc", "__ctype_toupper_loc", "__ctype_tolower_loc",
    "printf", "vprintf", "puts", "putchar", "fprintf", "vfprintf", "fputs", "fputc", "putc",
    "fwrite", "fflush", "sprintf", "snprintf", "vsprintf", "vsnprintf", "sscanf",
    "__isoc99_sscanf", "__isoc23_sscanf", "__isoc23_strtol", "__isoc23_strtoul",
    "__isoc23_strtoll", "__isoc23_strtoull", "stdout", "stderr",
    "__printf_chk", "__fprintf_chk", "__sprintf_chk", "__snprintf_chk", "__vsnprintf_chk",
    "__vsprintf_chk", "__vfprintf_chk", "__vprintf_chk", "__memcpy_chk", "__memmove_chk",
    "__memset_chk", "__strcpy_chk", "__strncpy_chk", "__strcat_chk", "__strncat_chk",
    "__stack_chk_fail", "__assert_fail", "abort", "__errno_location", "time", "clock",
    "clock_gettime", "__libc_single_threaded",
}
# What the compiler and linker generate references to themselves: the object's DSO handle, the
# GOT, thread-local storage, Clang's terminate helper.
TOOLCHAIN_GENERATED = {"__dso_handle", "_GLOBAL_OFFSET_TABLE_", "__tls_get_addr",
                       "__clang_call_terminate"}

# The C++ standard library is allowed by where a name comes from, not by a list of its names
# (which changes with every release: GCC 13's <iostream> references std::ios_base_library_init
# where GCC 12's defined a std::ios_base::Init object):
# - a C++ name in the namespaces the standard and the Itanium C++ ABI reserve to the
#   implementation (std::, __cxxabiv1::, and libstdc++'s __gnu_cxx:: and __gnu_debug::);
# - a C++ name the toolchain's libstdc++ exports (the global operator new and delete, typeinfo of
#   int and char const*), or, where that library cannot be read, those same language entities;
# - a C name of the C++ ABI's runtime (__cxa_*, the personality routines, _Unwind_Resume) or one
#   the toolchain's libstdc++ or libgcc_s exports and libc does not (__dynamic_cast, __divti3).
# Except the parts of those libraries that reach what the C library's refused functions reach
# (STD_FORBIDDEN, RUNTIME_FORBIDDEN below, and FORBIDDEN's __cxa_thread_atexit and friends).
STD_NAMESPACES = re.compile(r"^(std|__cxxabiv1|__gnu_cxx|__gnu_debug)::")
CXX_ABI_RUNTIME = re.compile(r"^(__cxa_\w+|__g(xx|cc)_personality_v0|_Unwind_Resume)$")
GLOBAL_ALLOCATION = re.compile(r"^operator (new|delete)(\[\])?$")
# The C++ ABI's type-information classes (vtables of typeinfo objects).
ABI_ALLOWED = re.compile(r"^__cxxabiv1::")
# Compiler-inserted hooks: the simulator's access trace (coverage hooks, sim/src/trace.cpp) and
# the sanitizer presets' instrumentation.
HOOKS_ALLOWED = re.compile(
    r"^(__sanitizer_cov_\w+|__start___sancov_\w+|__stop___sancov_\w+"
    r"|__tsan_(read|write|unaligned_read|unaligned_write)\d+(_pc)?|__tsan_(read|write)_range"
    r"|__tsan_func_(entry|exit)|__tsan_atomic\w+|__tsan_init|__tsan_vptr_\w+"
    r"|__tsan_mem(cpy|set|move)|__tsan_(acquire|release)|__tsan_ignore_thread_(begin|end)"
    r"|__asan_(report|load|store|exp)\w*|__asan_(init|version_mismatch_check_v\d+"
    r"|(un)?register_(elf_)?globals|handle_no_return|option_detect_stack_use_after_return"
    r"|stack_(malloc|free)_\d+|set_shadow_\w+|mem(cpy|set|move)|before_dynamic_init"
    r"|after_dynamic_init|(un)?poison_\w+|alloca_poison|allocas_unpoison"
    r"|shadow_memory_dynamic_address)|__ubsan_handle_\w+)$")

# What code that runs at load or exit time may reference, by who generated it.
NVCC_REGISTRATION = {"__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd",
                     "__cudaRegisterFunction", "__cudaRegisterVar", "__cudaUnregisterFatBinary",
                     "__cudaInitModule", "atexit"}
# nvcc's registration function (an .init_array entry) and what it alone may call.
NVCC_REGISTER_ALL = "_ZL24__sti____cudaRegisterAllv"
# What the static std::ios_base::Init object that <iostream> defines in every file including it
# (libstdc++ before GCC 13, with GCC or Clang) may call from its initializer. GCC 13's
# <iostream> defines none: it references std::ios_base_library_init, and libstdc++ initializes
# the streams itself.
IOSTREAM_INIT = {"std::ios_base::Init::Init", "std::ios_base::Init::~Init", "__cxa_atexit",
                 "__dso_handle"}

# Refused, with what kind of thing it is (the reason the status gives).
FORBIDDEN_WHY = "no files, processes, environment, signals, exit or dynamic loading"
FORBIDDEN = {name: FORBIDDEN_WHY for name in """
    fopen fopen64 freopen fdopen fmemopen open_memstream open open64 openat openat2 creat read
    write pread pwrite pread64 pwrite64 readv writev close lseek lseek64 stat stat64 fstat
    fstat64 lstat fstatat statx access faccessat unlink unlinkat remove rename renameat mkdir
    mkdirat rmdir opendir fdopendir readdir readdir64 closedir scandir chdir fchdir getcwd
    realpath readlink readlinkat symlink link chmod fchmod chown truncate ftruncate mmap mmap64
    munmap mprotect mremap madvise dup dup2 dup3 pipe pipe2 fread fgets fgetc getc getchar
    gets getline getdelim fscanf scanf vscanf vfscanf __isoc99_scanf __isoc99_fscanf
    __isoc23_scanf __isoc23_fscanf tmpfile tmpnam mkstemp mkdtemp fseek ftell rewind fclose
    setvbuf setbuf fileno ungetc sendfile splice inotify_init fanotify_init ioctl fcntl sync
    fsync
    system popen pclose fork vfork clone execve execv execvp execvpe execl execlp execle fexecve
    posix_spawn posix_spawnp wait waitpid wait3 wait4 waitid kill killpg raise setsid setpgid
    daemon prctl ptrace getpid getppid setuid setgid seteuid setegid nice setpriority
    sched_setaffinity sched_yield sleep usleep nanosleep clock_nanosleep pthread_create
    pthread_join pthread_detach pthread_kill pthread_exit pthread_atfork pthread_sigmask
    pthread_cancel thrd_create
    getenv secure_getenv setenv unsetenv putenv clearenv environ __environ
    signal sigaction sigprocmask sigsuspend sigwait sigaltstack alarm setitimer timer_create
    bsd_signal sysv_signal __sysv_signal
    exit _exit _Exit quick_exit at_quick_exit atexit on_exit __cxa_thread_atexit
    __cxa_thread_atexit_impl __cxa_finalize setjmp _setjmp longjmp _longjmp siglongjmp __sigsetjmp
    __longjmp_chk
    dlopen dlsym dlvsym dlclose dlerror dladdr dladdr1 dlinfo dlmopen dl_iterate_phdr
    syscall socket connect bind listen accept accept4 send sendto sendmsg recv recvfrom recvmsg
    getaddrinfo gethostbyname
    """.split()}
# The C++ library's parts that reach what the C library's refused functions reach, refused for
# the same reasons: files (file streams, std::filesystem, __gnu_cxx::stdio_filebuf on a raw file
# descriptor, std::stacktrace reading the executable, the time-zone database, message catalogs),
# threads and what waits for them, std::cin, std::random_device (a device file), the process's
# exit and its terminate and new handlers, the environment. Inline namespaces (__cxx11, a
# library's versioned __1 or __8, _V2) and std::experimental:: in between are passed over.
STD_FORBIDDEN = re.compile(
    r"^(std|__gnu_cxx)::((__\w+|_V\d+|experimental)::)*("
    r"basic_(i|o)?fstream|basic_filebuf|__basic_file|filesystem::|stdio_filebuf|"
    r"(basic_)?stacktrace|chrono::(tzdb|get_tzdb|reload_tzdb|remote_version|locate_zone|"
    r"current_zone|time_zone\b)|messages(_byname)?\b|"
    r"thread\b|this_thread::|jthread|notify_all_at_thread_exit|async|__future_base|"
    r"__atomic_futex_unsigned_base|condition_variable|__once_call|call_once|"
    r"random_device|cin\b|wcin\b|set_terminate|set_unexpected|set_new_handler|exit\b|_Exit\b|"
    r"quick_exit|at_quick_exit|system\b|getenv)")
# The C++ runtime's parts that compiled code never calls itself and that move control or make
# memory executable as longjmp and mprotect would: the unwinder beyond _Unwind_Resume (forced
# unwinding, setting a frame's registers), registering unwind tables, an executable stack.
RUNTIME_FORBIDDEN = re.compile(r"^(_Unwind_(?!Resume$)\w+|__(de)?register_frame\w*|"
                               r"__enable_execute_stack|__clear_cache)$")

COURSE_NAMESPACES = ("histo::", "histo_sim::", "Catch::", "labs::")


class Libraries:
    """What the toolchain's shared C and C++ libraries export (nm -D), by library: `c` (libc),
    `math` (libm's functions), `cxx` (libstdc++ and libgcc_s, the C++ runtime), `all`."""

    def __init__(self, c, math, cxx):
        self.c, self.math, self.cxx = c, math, cxx
        self.all = c | math | cxx


@functools.lru_cache(maxsize=None)
def shared_library_exports(compiler):
    """The Libraries that `compiler` links a program with, found where the compiler says
    (`compiler -print-file-name=LIB`), else in the system's library folders; read once."""
    found = {}
    for lib in ("libstdc++.so.6", "libc.so.6", "libm.so.6", "libgcc_s.so.1"):
        path = None
        try:
            out = subprocess.run([compiler, f"-print-file-name={lib}"], capture_output=True,
                                 text=True, timeout=TOOL_TIMEOUT).stdout.strip()
            if out and os.path.isabs(out) and os.path.exists(out):
                path = os.path.realpath(out)
        except (OSError, subprocess.TimeoutExpired):
            pass
        if not path:
            for d in ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
                      "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu"):
                if os.path.exists(os.path.join(d, lib)):
                    path = os.path.realpath(os.path.join(d, lib))
                    break
        names = set()
        if path:
            out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True,
                                 text=True, timeout=TOOL_TIMEOUT).stdout
            # "0000000000012345 T name@@VERSION"; version nodes (A) are no symbols.
            names = {line.split()[-1].split("@")[0] for line in out.splitlines()
                     if len(line.split()) >= 3 and line.split()[1] != "A"}
        found[lib] = frozenset(names)
    math = frozenset(n for n in found["libm.so.6"] if not n.startswith("_") or n.endswith("_finite"))
    return Libraries(found["libc.so.6"], math, found["libstdc++.so.6"] | found["libgcc_s.so.1"])


def _namespace_blocks(text, namespace):
    """The bodies of `namespace NAME { ... }` in (comment-free) text, braces matched."""
    blocks = []
    for m in re.finditer(r"\bnamespace\s+" + namespace + r"\s*\{", text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        blocks.append(text[m.end():i - 1])
    return blocks


@functools.lru_cache(maxsize=None)
def sim_names():
    """The histo_sim:: names that the simulator's kernel-side headers spell out."""
    root = Path(__file__).resolve().parents[2]
    names = set(SIM_ALLOWED)
    header = root / "sim/include/cuda_runtime.h"
    try:
        text = "\n".join(_code_only(header.read_text().splitlines()))
    except OSError:
        return frozenset(names)
    names |= {"histo_sim::" + n for n in re.findall(r"\bhisto_sim::(\w+)", text)}
    # Inline helpers the header defines inside namespace histo_sim (to_bits, shuffle, ...), and
    # its operators (the launch's `kernel * chevrons(...)(args)`).
    for block in _namespace_blocks(text, "histo_sim"):
        names |= {"histo_sim::" + n for n in re.findall(r"(?:^|\s)(\w+)\s*\(", block)
                  if n not in ("sizeof", "static_assert", "void", "unsigned", "return", "if", "operator")}
        names |= {"histo_sim::" + n for n in re.findall(r"\b(operator[^\w\s(]+)\s*\(", block)}
        names |= {"histo_sim::" + n for n in re.findall(r"\b(?:struct|class|enum class|using)\s+(\w+)", block)}
        names |= {"histo_sim::" + n for n in re.findall(r"extern\s+[\w:*<>() ]+?\b(\w+)\s*(?:\[[^\]]*\])?\s*;", block)}
    return frozenset(names)


# ---- Names -------------------------------------------------------------------------------------

def demangle(names):
    """{mangled: demangled without parameter lists} (c++filt -p), one process for all."""
    names = sorted(set(names))
    if not names:
        return {}
    out = subprocess.run(["c++filt", "-p"], input="\n".join(names) + "\n", capture_output=True,
                         text=True, timeout=TOOL_TIMEOUT).stdout.splitlines()
    if len(out) != len(names):
        return {n: n for n in names}
    return dict(zip(names, out))


_OPERATORS = [("operator<<=", "operator\x01\x01="), ("operator>>=", "operator\x02\x02="),
              ("operator<=>", "operator\x01=\x02"), ("operator<<", "operator\x01\x01"),
              ("operator>>", "operator\x02\x02"), ("operator<=", "operator\x01="),
              ("operator>=", "operator\x02="), ("operator->*", "operator-\x02*"),
              ("operator->", "operator-\x02"), ("operator<", "operator\x01"),
              ("operator>", "operator\x02"), ("operator()", "operator\x03")]


def plain(name):
    """A demangled name with template arguments, parameter lists and the __cxx11 inline
    namespace removed: histo::launch<...>(...)::{lambda(void*)#1}::__invoke ->
    histo::launch::{lambda#1}::__invoke."""
    for op, placeholder in _OPERATORS:
        name = name.replace(op, placeholder)
    out, depth = [], 0
    for ch in name:
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    text = "".join(out)
    for op, placeholder in _OPERATORS:
        text = text.replace(placeholder, op)
    text = text.replace("std::__cxx11::", "std::").replace(" const", "")
    return re.sub(r"\s+", " ", text).strip()


# "vtable for X", "typeinfo for X", ...: what they are about.
_SPECIAL = re.compile(r"^(vtable|typeinfo|typeinfo name|VTT|construction vtable|guard variable|"
                      r"TLS init function|TLS wrapper function|non-virtual thunk to|virtual thunk to|"
                      r"covariant return thunk to|reference temporary #\d+) for |^(non-virtual thunk to|"
                      r"virtual thunk to|covariant return thunk to) ")


def subject(name):
    """The entity a symbol is about: "typeinfo for std::invalid_argument" -> std::invalid_argument."""
    while True:
        m = _SPECIAL.match(name)
        if not m:
            return name
        name = name[m.end():].split("-in-")[0]


_FUNDAMENTAL = re.compile(r"^((unsigned|signed|const|volatile|char|short|int|long|float|double|"
                          r"bool|void|wchar_t|char8_t|char16_t|char32_t|__int128|decltype\(nullptr\))"
                          r"[\s*&]*)+$")


class Rules:
    """The allowlist, for one object kind and lab."""

    def __init__(self, lab, compiler):
        self.lab = lab
        self.libraries = shared_library_exports(compiler)
        self.exports, self.math = self.libraries.all, self.libraries.math
        self.sim = sim_names()

    def cuda_name(self, base):
        return re.sub(r"(_v\d+|_ptds|_ptsz)$", "", base)

    def standard_library(self, raw, name, about):
        """True when the symbol `raw` (demangled `name`, plain `about`) comes from the C++
        standard library or its runtime, or is one of the C library's allowed functions (see
        STD_NAMESPACES and C_ALLOWED)."""
        if raw.startswith("_Z") or not re.match(r"^[A-Za-z_]\w*$", raw):  # a C++ name
            return bool(STD_NAMESPACES.match(about) or raw in self.libraries.cxx
                        or GLOBAL_ALLOCATION.match(about)
                        or (name != subject(name) and _FUNDAMENTAL.match(subject(name))))
        if raw in C_ALLOWED or raw in self.math or raw in TOOLCHAIN_GENERATED:
            return True
        # The C++ runtime's C names: the ABI's own, or what its libraries export and libc does not.
        return bool(CXX_ABI_RUNTIME.match(raw)
                    or (raw in self.libraries.cxx and raw not in self.libraries.c))

    def allowed_reference(self, raw, name):
        """Why the undefined symbol `raw` (demangled, plain: `name`) is refused, as
        (kind, reason); None when it is allowed."""
        about = plain(subject(name))
        cuda = self.cuda_name(about)
        if about.startswith(self.lab + "::"):
            return None  # the lab's own files (its registry)
        if cuda in CUDA_ALLOWED:
            return None
        if cuda in CUDA_HOST_VISIBLE:
            return ("forbidden", "no host-visible memory (cudaMallocHost, cudaHostAlloc, "
                                 "cudaHostRegister, cudaMallocManaged): the kernel counts in device memory")
        if about in FORBIDDEN or raw in FORBIDDEN:
            return ("forbidden", FORBIDDEN_WHY)
        if STD_FORBIDDEN.match(about) or RUNTIME_FORBIDDEN.match(raw):
            return ("forbidden", FORBIDDEN_WHY)
        if about in self.sim or raw in self.sim:
            return None
        head = about.split("::{")[0]
        if any(head == h or head.startswith(h + "::") for h in HISTO_ALLOWED):
            return None
        if about.startswith(COURSE_NAMESPACES):
            return ("course", "")
        if HOOKS_ALLOWED.match(raw) or self.standard_library(raw, name, about):
            return None
        if re.match(r"^(cuda|__cuda|cu[A-Z]|__nv)", about):
            return ("forbidden", "only the CUDA runtime calls a launcher needs (device memory, "
                                 "copies, streams, events, errors, device attributes, occupancy, launches)")
        return ("forbidden", "only the CUDA runtime, the histo:: launch helpers, the C++ standard "
                             "library and the C library's memory, string, math and formatting functions")

    def allowed_definition(self, raw, name, weak):
        """"" when the object may define the global symbol `raw` (demangled `name`); else what
        it is, for the status."""
        about = plain(subject(name))
        if about.startswith(self.lab + "::"):
            return ""
        stub = re.match(r"^__device_stub__(Z\w+)$", about)
        if stub:  # nvcc's host stub of a kernel: a function named __device_stub__ + its mangled name
            kernel = plain(demangle(["_" + stub.group(1)]).get("_" + stub.group(1), ""))
            if kernel.startswith(self.lab + "::"):
                return ""
        if re.match(r"^DW\.ref\.__g(cc|xx)_personality_v0$", raw) or raw == "__clang_call_terminate":
            return ""  # the compiler's own: the personality routine's pointer, terminate's helper
        if raw == "main":
            return "main"
        if raw in self.exports and (not weak or not raw.startswith("_Z")):
            # It would replace the C or C++ library's own for the whole grader. (A weak C++
            # instantiation the library also exports, such as std::ctype<char>::do_widen of
            # std::endl, is the headers' own code: no macro of the submission changed it.)
            return "library"
        if not weak or not raw.startswith("_Z"):
            return "course" if about.startswith(COURSE_NAMESPACES) else "other"
        # A weak C++ instantiation: harmless unless something else is meant to provide it.
        head = about.split("::{")[0]
        if about.startswith("histo_sim::") and (head in self.sim or about in self.sim
                                                or head.rsplit("::", 1)[0] in self.sim):  # a member
            return ""
        if about.startswith("histo::") and (any(head == h or head.startswith(h + "::")
                                                for h in HISTO_ALLOWED) or re.match(r"^histo::k[A-Z]\w*$", head)):
            return ""
        if about.startswith(COURSE_NAMESPACES):
            return "course"
        return ""


# ---- Reading an object file --------------------------------------------------------------------

def run_tool(args):
    proc = subprocess.run(args, capture_output=True, text=True, errors="replace", timeout=TOOL_TIMEOUT)
    if proc.returncode != 0:
        raise RuntimeError(f"{args[0]} failed on {args[-1]}: {proc.stderr.strip()[:300]}")
    return proc.stdout


class Symbol:
    def __init__(self, index, value, size, kind, bind, ndx, name):
        self.index, self.value, self.size = index, value, size
        self.kind, self.bind, self.ndx, self.name = kind, bind, ndx, name
        self.demangled = name

    @property
    def defined(self):
        return self.ndx not in ("UND",)

    @property
    def is_global(self):
        return self.bind in ("GLOBAL", "WEAK", "UNIQUE", "GNU_UNIQUE")


class ObjectFile:
    """An ELF relocatable object as binutils' readelf shows it: sections, symbols, relocations."""

    def __init__(self, path):
        self.path = Path(path)
        self.sections = {}  # index -> (name, flags)
        for line in run_tool(["readelf", "-SW", str(self.path)]).splitlines():
            m = re.match(r"^\s*\[\s*(\d+)\]\s+(\S+)\s+(\S+)\s+[0-9a-f]+\s+[0-9a-f]+\s+[0-9a-f]+\s+"
                         r"[0-9a-f]+\s+([A-Za-z]*)\s", line)
            if m:
                self.sections[int(m.group(1))] = (m.group(2), m.group(4))
        self.symbols = []
        for line in run_tool(["readelf", "-sW", str(self.path)]).splitlines():
            m = re.match(r"^\s*(\d+):\s+([0-9a-f]+)\s+(\d+|0x[0-9a-f]+)\s+(\S+)\s+(\S+)\s+(\S+)\s+"
                         r"(\S+)\s*(.*)$", line)
            if m:
                size = int(m.group(3), 0)
                self.symbols.append(Symbol(int(m.group(1)), int(m.group(2), 16), size, m.group(4),
                                           m.group(5), m.group(7), m.group(8).strip()))
        names = demangle(s.name for s in self.symbols if s.name)
        for s in self.symbols:
            s.demangled = names.get(s.name, s.name)
        self.by_index = {s.index: s for s in self.symbols}
        # Relocations: section they apply to -> [(offset, type, symbol index, addend)].
        self.relocations = {}
        current = None
        for line in run_tool(["readelf", "-rW", str(self.path)]).splitlines():
            m = re.match(r"^Relocation section '\.rela?(.*)' at offset", line)
            if m:
                current = self.relocations.setdefault(m.group(1), [])
                continue
            m = re.match(r"^([0-9a-f]+)\s+([0-9a-f]+)\s+(\S+)\s+(?:[0-9a-f]+\s+)?(.*?)\s*([+-])\s*([0-9a-f]+)$", line)
            if m and current is not None:
                index = int(m.group(2), 16) >> 32
                addend = int(m.group(6), 16) * (-1 if m.group(5) == "-" else 1)
                current.append((int(m.group(1), 16), m.group(3), index, addend))

    def section_name(self, ndx):
        try:
            return self.sections[int(ndx)][0]
        except (ValueError, KeyError):
            return ""

    def executable(self, section):
        return any(name == section and "X" in flags for name, flags in self.sections.values())

    def functions_in(self, section):
        return [s for s in self.symbols if s.kind in ("FUNC", "GNU_IFUNC", "IFUNC") and s.defined
                and self.section_name(s.ndx) == section]

    def function_at(self, section, offset):
        for s in self.functions_in(section):
            if s.value <= offset < s.value + max(s.size, 1):
                return s
        return None

    def references_in(self, section, begin=0, end=None):
        """(offset, type, symbol, target offset) of the relocations in [begin, end) of a section."""
        found = []
        for offset, kind, index, addend in self.relocations.get(section, []):
            if offset < begin or (end is not None and offset >= end):
                continue
            sym = self.by_index.get(index)
            if sym is None:
                continue
            # A PC-relative reference to a section symbol points 4 bytes past its addend.
            target = addend + 4 if ("PC32" in kind or "PLT32" in kind) else addend
            found.append((offset, kind, sym, target))
        return found

    def where(self, section, offsets):
        """{offset: [(file, line), ...] innermost first} from the object's line tables."""
        if not offsets:
            return {}
        try:
            out = run_tool(["addr2line", "-e", str(self.path), "-i", "-j", section,
                            *[hex(o) for o in offsets]])
        except (RuntimeError, OSError, subprocess.TimeoutExpired):
            return {}
        # With -i each address prints one or more lines; without -a they cannot be told apart,
        # so ask once per offset when there are inlined frames.
        lines = out.splitlines()
        if len(lines) == len(offsets):
            return {o: [_file_line(l)] for o, l in zip(offsets, lines)}
        result = {}
        for o in offsets:
            try:
                one = run_tool(["addr2line", "-e", str(self.path), "-i", "-j", section, hex(o)])
            except (RuntimeError, OSError, subprocess.TimeoutExpired):
                continue
            result[o] = [_file_line(l) for l in one.splitlines()]
        return result


def _file_line(text):
    m = re.match(r"^(.*):(\d+)(?: \(discriminator \d+\))?$", text.strip())
    return (m.group(1), int(m.group(2))) if m else ("??", 0)


# ---- The checks --------------------------------------------------------------------------------

# Sections whose entries the loader or the C runtime runs before main or after it.
_STARTUP = re.compile(r"^\.(init_array|fini_array|preinit_array|ctors|dtors)(\.\d+)?$|^\.(init|fini)$")
_SANITIZER_CTOR = re.compile(r"^(sancov|asan|tsan|msan|hwasan|ubsan)\.module_(ctor|dtor)\w*$")


class Located:
    """Finds the submission's line for a symbol: the object's line tables, else its text."""

    def __init__(self, obj, submission, source_name, text):
        self.obj = obj
        self.submission = Path(submission).resolve()
        self.source_name = source_name
        self.lines = text.splitlines()

    def ours(self, path):
        try:
            return Path(path).resolve() == self.submission
        except OSError:
            return False

    def from_tables(self, section, offset):
        frames = self.obj.where(section, [offset]).get(offset, [])
        for path, line in reversed(frames):  # outermost first: the submission's own call
            if line and self.ours(path):
                return line
        for path, line in frames:
            if line and self.ours(path):
                return line
        return 0

    def from_text(self, *words):
        code = _code_only(self.lines)
        for word in words:
            if not word:
                continue
            pattern = re.compile(r"(?<!\w)" + re.escape(word) + r"(?!\w)")
            for n, line in enumerate(code, 1):
                if pattern.search(line):
                    return n
        return 0

    def at(self, line):
        return f"{self.source_name}:{line}" if line else self.source_name

    def symbol_line(self, sym, uses=()):
        """The line of a reference to (or the definition of) `sym`."""
        line = 0
        for section, offset in uses:
            line = self.from_tables(section, offset)
            if line:
                break
        if not line and sym.defined and self.obj.section_name(sym.ndx):
            line = self.from_tables(self.obj.section_name(sym.ndx), sym.value)
        if not line:
            base = plain(subject(sym.demangled)).split("::{")[0]
            parts = base.split("::")
            words = [base, parts[-1]] + ["::".join(parts[:k]) for k in range(len(parts) - 1, 0, -1)]
            words += reversed(parts[:-1])
            line = self.from_text(*[w for w in words if w not in ("std", "__cxx11", "histo", "")])
        return self.at(line)


def _code_only(lines):
    """The source's lines with comments and string literals blanked (line numbers kept)."""
    text = "\n".join(lines)
    token = re.compile(r'(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(.*?\)\1"|[A-Za-z_$][\w$]*|'
                       r"\.?\d(?:[eEpP][+-]|'\w|[\w.])*|"
                       r"//[^\n]*|/\*.*?\*/|'(?:\\.|[^'\\\n])*'|\"(?:\\.|[^\"\\\n])*\"", re.S)
    # Words and numbers are kept (they are matched only so that a digit separator or a raw
    # string's prefix is read as the compiler reads it).
    keep = re.compile(r"[A-Za-z_$.\d]")
    text = token.sub(lambda m: m.group(0) if keep.match(m.group(0)[:1]) and not m.group(0).endswith('"')
                     else re.sub(r"[^\n]", " ", m.group(0)), text)
    return text.split("\n")


def check_startup(obj, loc):
    """Entries of .init_array and the like: only what the toolchain generates."""
    for index, (section, _) in sorted(obj.sections.items()):
        if not _STARTUP.match(section):
            continue
        what = "a destructor" if re.match(r"^\.(fini|dtors)", section) else "a constructor"
        if section in (".init", ".fini"):
            return f"runs code outside the tests: {what} ({loc.at(loc.from_text('section'))})"
        for offset, kind, sym, target in obj.references_in(section):
            entry = sym
            if sym.kind == "SECTION" or sym.name == "":
                entry = obj.function_at(obj.section_name(sym.ndx), target)
            if entry is None:
                return f"runs code outside the tests: {what} ({loc.at(loc.from_text('constructor', 'destructor'))})"
            problem = startup_function(obj, entry)
            if problem:
                line = loc.from_tables(obj.section_name(entry.ndx), entry.value)
                if not line:
                    line = loc.from_text("constructor", "destructor", "__attribute__", "static")
                return f"runs code outside the tests: {what} that calls {problem} ({loc.at(line)})"
    return ""


def startup_function(obj, entry):
    """"" when the function an .init_array entry runs is one the toolchain generates and reaches
    only what it may (nvcc's registration, coverage or sanitizer module constructors, the
    <iostream> initializer); else the first other thing it reaches."""
    # What the toolchain names itself (a name no C++ source can give a function: nvcc's is
    # reserved to it, a sanitizer's holds a dot) is checked for what it calls directly: the
    # kernels nvcc registers and the globals a sanitizer describes are the submission's own.
    nvcc = obj.nvcc and entry.name == NVCC_REGISTER_ALL
    generated = nvcc or bool(_SANITIZER_CTOR.match(entry.name))
    allowed = NVCC_REGISTRATION if nvcc else set() if generated else IOSTREAM_INIT
    # Ranges of sections the entry reaches: functions it calls or whose address it takes, and
    # data it refers to (whatever that holds may be called through it).
    todo = [(obj.section_name(entry.ndx), entry.value, entry.value + max(entry.size, 1))]
    seen = set()
    while todo:
        node = todo.pop()
        if node in seen:
            continue
        seen.add(node)
        section, begin, end = node
        for _, _, sym, target in obj.references_in(section, begin, end):
            name = plain(subject(sym.demangled))
            if not sym.defined:
                if (name in allowed or sym.name in allowed or HOOKS_ALLOWED.match(sym.name)
                        or ABI_ALLOWED.match(name)):
                    continue
                return name
            if generated:
                continue
            sec = obj.section_name(sym.ndx)
            if sym.kind == "SECTION" and not obj.executable(sec):
                todo.append((sec, 0, None))
                continue
            if sym.kind == "SECTION":
                sym = obj.function_at(sec, target)
                if sym is None:
                    continue
                name = plain(subject(sym.demangled))
            if sym.kind == "FUNC" and sym.bind == "LOCAL":
                todo.append((sec, sym.value, sym.value + max(sym.size, 1)))
            elif sym.kind == "FUNC":
                return name  # one of the submission's functions, run before the tests
            elif sym.size:
                todo.append((sec, sym.value, sym.value + sym.size))
    return ""


def check_definitions(obj, rules, loc, course_defined):
    for sym in obj.symbols:
        if not sym.defined or not sym.is_global or sym.kind in ("SECTION", "FILE"):
            continue
        if sym.kind in ("GNU_IFUNC", "IFUNC"):
            return f"runs code outside the tests: an ifunc resolver ({loc.symbol_line(sym)})"
        if sym.name in course_defined:
            return (f"defines what the course's files define: {plain(sym.demangled)} "
                    f"({loc.symbol_line(sym)})")
        kind = rules.allowed_definition(sym.name, sym.demangled, sym.bind in ("WEAK", "UNIQUE", "GNU_UNIQUE"))
        if not kind:
            continue
        name = plain(subject(sym.demangled))
        if kind == "main":
            return f"defines main ({loc.symbol_line(sym)})"
        if kind == "course":
            return f"defines the course's own code: {name} ({loc.symbol_line(sym)})"
        if kind == "library":
            which = "C++" if sym.name.startswith("_Z") else "C"
            return f"defines a function of the {which} library: {name} ({loc.symbol_line(sym)})"
        return (f"defines {name} outside namespace {rules.lab} ({loc.symbol_line(sym)}): a "
                f"submission's own functions and variables go in namespace {rules.lab}")
    return ""


def nvcc_generated(obj, sym, uses):
    """True when every reference to `sym` is code nvcc generates itself: atexit in the
    fatbinary's registration (which unregisters it at exit), exit(1) as the host body of a
    __device__ function (never called on the host)."""
    if not obj.nvcc or not uses or sym.name not in ("atexit", "exit"):
        return False
    for section, offset in uses:
        fn = obj.function_at(section, offset)
        if fn is None:
            return False
        if sym.name == "atexit":
            if fn.name != NVCC_REGISTER_ALL:
                return False
            continue
        # exit(1) and nothing else: a function of a few instructions whose one relocation is exit.
        relocs = obj.references_in(section, fn.value, fn.value + fn.size)
        if fn.size > 32 or len(relocs) != 1 or not exits_with_one(obj, section, fn):
            return False
    return True


def exits_with_one(obj, section, fn):
    try:
        out = run_tool(["objdump", "-d", "--no-show-raw-insn", "-j", section,
                        f"--start-address={fn.value}", f"--stop-address={fn.value + fn.size}",
                        str(obj.path)])
    except (RuntimeError, OSError, subprocess.TimeoutExpired):
        return False
    code = [l.split("\t", 1)[-1].strip() for l in out.splitlines() if re.match(r"^\s+[0-9a-f]+:\t", l)]
    # Stack adjustments aside, the one constant is the 1 passed to exit.
    immediates = {i for c in code if not re.match(r"^(sub|add)\s+\$0x[0-9a-f]+,%rsp$", c)
                  for i in re.findall(r"\$0x[0-9a-f]+", c)}
    return (immediates == {"$0x1"} and any(c.startswith("call") for c in code)
            and not any(re.match(r"^xor\s", c) for c in code))


def check_references(obj, rules, loc):
    uses = {}
    for section, relocs in obj.relocations.items():
        if section.startswith((".debug", ".eh_frame", ".rela")):
            continue
        for offset, _, index, _ in relocs:
            uses.setdefault(index, []).append((section, offset))
    for sym in obj.symbols:
        if sym.defined or not sym.name or sym.kind == "FILE":
            continue
        refused = rules.allowed_reference(sym.name, sym.demangled)
        if refused is None or nvcc_generated(obj, sym, uses.get(sym.index, [])):
            continue
        kind, why = refused
        name = plain(subject(sym.demangled))
        verb = "uses" if sym.kind == "OBJECT" or name in ("stdin", "environ", "__environ") else "calls"
        where = loc.symbol_line(sym, uses.get(sym.index, [])[:3])
        if kind == "course":
            return f"calls the course's host code: {name} ({where})"
        return f"uses what a submission may not: {verb} {name} ({where}): {why}"
    return ""


def check_object(path, lab, submission, source_name, text, compiler="c++", course_defined=(),
                 nvcc=False):
    """"" or the status line for one object that compiles the submission (`nvcc`: nvcc's host
    object, whose registration code is nvcc's own; `compiler`: the host compiler, whose shared
    libraries' exports a definition may not replace)."""
    obj = ObjectFile(path)
    obj.nvcc = nvcc
    rules = Rules(lab, compiler)
    loc = Located(obj, submission, source_name, text)
    return (check_startup(obj, loc) or check_code_sections(obj, loc)
            or check_definitions(obj, rules, loc, set(course_defined))
            or check_references(obj, rules, loc))


# Where compilers put code: .text and its named parts (-ffunction-sections, comdat groups,
# .text.startup), .init/.fini (check_startup).
_CODE_SECTION = re.compile(r"^\.(text|init|fini)(\..*)?$")


def check_code_sections(obj, loc):
    """Code only in the sections compilers put it in: a function placed elsewhere (the
    simulator's device memory, which kernels may write) is refused however the source
    spelled it."""
    for section, flags in obj.sections.values():
        if "X" in flags and not _CODE_SECTION.match(section):
            inside = obj.functions_in(section)
            where = loc.symbol_line(inside[0]) if inside else loc.at(loc.from_text("section"))
            return f"places its code where it may not: the section attribute ({where})"
    return ""


# ---- The source, preprocessed ------------------------------------------------------------------

_ATTRIBUTES = ("constructor", "destructor", "section", "alias", "ifunc", "weakref", "naked",
               "target_clones", "init_priority")
# Attributes that turn a function's instrumentation off: the simulator's counters and race
# checks see a kernel's loads and stores through that instrumentation (and nvcc ignores them).
_UNSEEN = (r"no_sanitize\w*", "disable_sanitizer_instrumentation", r"no_\w*instrument\w*")
_ATTRIBUTE_WORDS = re.compile(r"\b(?:__)?(" + "|".join(_ATTRIBUTES + _UNSEEN) + r")(?:__)?\b")


_RAW_STRING = re.compile(r'(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(')
_LINE_TOKENS = re.compile(r'(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(|"(?:\\.|[^"\\])*"|'
                          r"'(?:\\.|[^'\\])*'|[A-Za-z_$][\w$]*|\.?\d(?:[eEpP][+-]|'\w|[\w.])*")


def file_lines(preprocessed, submission):
    """(ours, line number, text, entered) for each line of preprocessed output: `ours` when the
    submission's own lines made it; for a line marker (`# 12 "file" 1`), text is the file's name
    and `entered` whether the file is entered there. A line inside a raw string literal is the
    literal's, never a marker (the submission cannot write a line directive, nor a # outside
    one: hidden_lines)."""
    submission = Path(submission).resolve()
    ours, line, cache, raw_end = False, 0, {}, None
    for raw in preprocessed.split("\n"):
        if raw_end is not None:  # inside a raw string literal that spans lines
            end = raw.find(raw_end)
            if end >= 0:
                raw_end = _raw_string_after(raw, end + len(raw_end))
            yield ours, line, raw, None
            line += 1
            continue
        m = re.match(r'^#\s*(?:line\s+)?(\d+)\s+"((?:\\.|[^"\\])*)"(.*)$', raw)
        if m:
            line = int(m.group(1))
            name = re.sub(r"\\(.)", r"\1", m.group(2))
            if name not in cache:
                try:
                    cache[name] = Path(name).resolve() == submission
                except OSError:
                    cache[name] = False
            ours = cache[name]
            yield ours, line, name, " 1" in f" {m.group(3)} "
            continue
        if not raw.lstrip().startswith("#"):
            raw_end = _raw_string_after(raw, 0)
        yield ours, line, raw, None
        line += 1


def _raw_string_after(text, start):
    """The closing `)delim"` of a raw string literal that opens in text[start:] and does not
    close on this line; None when every literal there closes."""
    i = start
    while True:
        m = _LINE_TOKENS.search(text, i)
        if not m:
            return None
        if m.group(0).endswith("(") and _RAW_STRING.match(m.group(0)):
            close = ")" + m.group(1) + '"'
            end = text.find(close, m.end())
            if end < 0:
                return close
            i = end + len(close)
        else:
            i = m.end()


_TRIGRAPHS = {"=": "#", "/": "\\", "'": "^", "(": "[", ")": "]", "!": "|", "<": "{", ">": "}", "-": "~"}
# The preprocessing tokens that matter here, in the order the preprocessor tries them.
_PP_TOKENS = re.compile(
    r'(?P<raw>(?:u8|u|U|L)?R"(?P<delim>[^()\\\s]{0,16})\(.*?\)(?P=delim)")'
    r"|(?P<comment>//[^\n]*|/\*.*?(?:\*/|\Z))"
    r'|(?P<literal>"(?:\\.|[^"\\\n])*"?|' r"'(?:\\.|[^'\\\n])*'?)"
    r"|(?P<word>[A-Za-z_$][\w$]*|\.?\d(?:[eEpP][+-]|'\w|[\w.])*)"
    r"|(?P<hash>%:%:|##|%:|#)|(?P<newline>\n)|(?P<space>[ \t\f\v]+)|(?P<other>.)", re.S)


def _phases(text, trigraphs):
    """The source as the preprocessor reads it before it makes tokens (translation phases 1 and
    2: newlines, trigraphs where `trigraphs`, backslash-newline splices, a space before the
    newline included as GCC and Clang take it), and the physical line of each character."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if trigraphs:
        text = re.sub(r"\?\?([=/'()!<>\-])", lambda m: _TRIGRAPHS[m.group(1)], text)
    out, lines, line, i = [], [], 1, 0
    for m in re.finditer(r"\\[ \t\f\v]*\n", text):
        chunk = text[i:m.start()]
        for ch in chunk:
            out.append(ch)
            lines.append(line)
            line += ch == "\n"
        line += 1
        i = m.end()
    for ch in text[i:]:
        out.append(ch)
        lines.append(line)
        line += ch == "\n"
    return "".join(out), lines


def hidden_lines(text, source_name):
    """"" or the status of a submission that could make its lines look like another file's
    to the check of its preprocessed text: a line directive (#line N "file", or the GNU form
    # N "file"), or a # (%:) token outside a directive or in an object-like macro's body, which
    could print as such a line marker in the preprocessor's output. Read from the physical
    text as the preprocessor reads it (splices, comments between tokens, digraphs; trigraphs
    both taken and not, since the language standard decides whether they are)."""
    for trigraphs in (False, True):
        logical, lines = _phases(text, trigraphs)
        tokens = [(m.lastgroup, m.group(0), m.start()) for m in _PP_TOKENS.finditer(logical)
                  if m.lastgroup not in ("space", "comment", "delim")]
        at_start, directive, position = True, None, 0
        for n, (kind, token, start) in enumerate(tokens):
            where = f"{source_name}:{lines[start] if start < len(lines) else lines[-1] if lines else 1}"
            if kind == "newline":
                at_start, directive, position = True, None, 0
                continue
            position += 1
            if kind == "hash" and token in ("#", "%:"):
                if at_start:
                    following = tokens[n + 1] if n + 1 < len(tokens) else ("newline", "", 0)
                    if following[1] == "line" or (following[0] == "word" and following[1][:1].isdigit()):
                        return f"hides where its lines are: a line directive ({where})"
                    directive = following[1] if following[0] == "word" else "null"
                    if directive == "define":
                        name = tokens[n + 2] if n + 2 < len(tokens) else ("newline", "", 0)
                        after = tokens[n + 3] if n + 3 < len(tokens) else ("newline", "", 0)
                        # Function-like only when ( follows the name with no space between.
                        function_like = (after[1] == "(" and name[0] == "word"
                                         and after[2] == name[2] + len(name[1]))
                        directive = "define()" if function_like else "define"
                elif directive is None:
                    return f"hides where its lines are: a {token} outside a directive ({where})"
                elif directive == "define":
                    return f"hides where its lines are: a {token} in a macro's body ({where})"
            at_start = False
    return ""


def submission_lines(preprocessed, submission):
    """[(line number, text)] of the preprocessed output that the submission's own lines made."""
    return [(n, text) for ours, n, text, marker in file_lines(preprocessed, submission)
            if ours and marker is None]


def check_source_text(lines, source_name, own_text="", simulator=()):
    """The submission's preprocessed lines: no inline assembly, no attribute that places code
    where the loader runs it. `simulator`: what the simulator's own variable macros expand to
    (simulator_attributes); one of them is the simulator's, not the submission's, on a line of
    the submission's own text (`own_text`) that spells __device__, __constant__ or such a macro
    once for each (the build's wrapper writes the macro for those words)."""
    code = _code_only([t for _, t in lines])
    numbers = [n for n, _ in lines]
    for (n, _), text in zip(lines, code):
        if re.search(r"\b(asm|__asm__|__asm)\b", text):
            return f"holds inline assembly ({source_name}:{n})"
    joined, raw = "\n".join(code), "\n".join(t for _, t in lines)
    own = _code_only(own_text.splitlines())
    budget = {}
    for m in re.finditer(r"__attribute__\s*\(\((.*?)\)\)|\[\[(.*?)\]\]|__declspec\s*\((.*?)\)", joined, re.S):
        body = next(g for g in m.groups() if g is not None)
        found = _ATTRIBUTE_WORDS.search(body)
        if found:
            n = numbers[joined.count("\n", 0, m.start())] if numbers else 0
            spelled = re.sub(r"\s+", "", raw[m.start():m.start() + 400])
            if any(spelled.startswith(a) for a in simulator):
                if n not in budget:
                    budget[n] = len(_SIMULATOR_WORDS.findall(own[n - 1])) if 0 < n <= len(own) else 0
                if budget[n] > 0:
                    budget[n] -= 1
                    continue
            what = found.group(1)
            runs = {"constructor": "a constructor", "init_priority": "a constructor",
                    "destructor": "a destructor", "ifunc": "an ifunc resolver",
                    "target_clones": "an ifunc resolver (target_clones)"}
            if what in runs:
                return f"runs code outside the tests: {runs[what]} ({source_name}:{n})"
            if what not in _ATTRIBUTES:
                return (f"hides its accesses from the checks: the {what} attribute ({source_name}:{n}): "
                        "the simulator's counters and race checks see every load and store")
            return f"places its code where it may not: the {what} attribute ({source_name}:{n})"
    return ""


# The simulator's cuda_runtime.h places __device__ and __constant__ variables in its device
# memory's sections with these macros (sim/tools/wrap.cpp writes them for those words).
_SIMULATOR_MACRO = re.compile(r"^#define\s+(HISTO_SIM_\w*_VARIABLE\w*)\s+(\S.*)$")
_SIMULATOR_WORDS = re.compile(r"\b(__device__|__constant__|HISTO_SIM_\w*_VARIABLE\w*)\b")


def simulator_attributes(preprocessed, submission):
    """What the simulator's variable macros, as a header (not the submission) defines them,
    expand to, whitespace left out."""
    found = set()
    for ours, _, text, entered in file_lines(preprocessed, submission):
        m = _SIMULATOR_MACRO.match(text) if entered is None and not ours else None
        if m:
            found.add(re.sub(r"\s+", "", m.group(2)))
    return tuple(sorted(found))


def preprocess(args, directory, work):
    """The compile command `args` run as its preprocessor alone, macro definitions kept (-dD):
    the preprocessed texts (nvcc: its host pass's and its device pass's, as nvcc -dryrun says it
    runs them)."""
    kept = without_outputs(args)
    work = Path(work)
    if Path(kept[0]).name.startswith("nvcc"):
        dry = subprocess.run(kept + ["-c", "-o", str(work / "dry.o"), "-dryrun"], cwd=directory,
                             capture_output=True, text=True, errors="replace", timeout=TOOL_TIMEOUT,
                             stdin=subprocess.DEVNULL)
        passes = []
        for line in (dry.stdout + dry.stderr).splitlines():
            if line.startswith("#$ ") and " -E " in line and "-x c++" in line:
                step = shlex.split(line[3:])
                if "-o" in step:
                    i = step.index("-o")
                    del step[i:i + 2]
                passes.append(step)
    else:
        passes = [kept + ["-E"]]
    texts = []
    for n, step in enumerate(passes):
        out = work / f"source{n}.i"
        proc = subprocess.run(step + ["-dD", "-o", str(out)], cwd=directory, capture_output=True,
                              text=True, errors="replace", timeout=TOOL_TIMEOUT, stdin=subprocess.DEVNULL)
        if proc.returncode == 0 and out.exists():
            texts.append(out.read_text(errors="replace"))
    return texts


_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")


@functools.lru_cache(maxsize=4096)
def header_words(path, mtime):
    """The identifiers of a header's text (comments and string literals left out)."""
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return frozenset()
    return frozenset(_IDENTIFIER.findall("\n".join(_code_only(text.splitlines()))))


def check_macros(preprocessed, submission, source_name):
    """A macro the submission defines may not name anything in a header it includes after the
    definition: it would change that header's inline functions and templates in the
    submission's object (`#define private public`, a redefined name of the C++ library or of
    the course's headers), code the grader might then call."""
    active = {}  # macro -> the line that defined it
    for ours, line, text, entered in file_lines(preprocessed, submission):
        if entered and active and not ours and Path(text).is_file():
            used = header_words(text, Path(text).stat().st_mtime) & active.keys()
            if used:
                word = sorted(used, key=lambda w: active[w])[0]
                return (f"changes the code of a header it includes: the macro {word} "
                        f"({source_name}:{active[word]})")
        elif ours and entered is None:
            d = re.match(r"^#(define|undef)\s+([A-Za-z_]\w*)", text)
            if d and d.group(1) == "define":
                active[d.group(2)] = line
            elif d:
                active.pop(d.group(2), None)
    return ""


# ---- A build slot ------------------------------------------------------------------------------

def object_of(args, directory):
    for i, a in enumerate(args):
        if a == "-o" and i + 1 < len(args):
            return (Path(directory) / args[i + 1]).resolve()
        if a.startswith("-o") and len(a) > 2:
            return (Path(directory) / a[2:]).resolve()
    return None


def host_compiler(args):
    name = Path(args[0]).name
    if name.startswith("nvcc"):
        for i, a in enumerate(args):
            if a.startswith("-ccbin="):
                return a.split("=", 1)[1]
            if a in ("-ccbin", "--compiler-bindir") and i + 1 < len(args):
                return args[i + 1]
        return "g++"
    return args[0]


def course_objects_defined(obj_path, student_objects):
    """Global symbols the lab library's other objects (the lab's registry, its shared files)
    define: the submission may not define them too."""
    target_dir = next((p for p in Path(obj_path).parents if p.name.endswith(".dir")), None)
    if target_dir is None:
        return set()
    names = set()
    for other in target_dir.rglob("*.o"):
        if other.resolve() in student_objects:
            continue
        out = subprocess.run(["nm", "--defined-only", "-g", str(other)], capture_output=True,
                             text=True, timeout=TOOL_TIMEOUT).stdout
        # Strong definitions only: weak ones are the instantiations every object may share.
        names |= {l.split()[-1] for l in out.splitlines() if len(l.split()) >= 3
                  and l.split()[1] in "TDRBG"}
    return names


def check_build(build, submission, source):
    """"" or the one status line of the first thing the submission's code may not do; see the
    module's docstring."""
    build, submission = Path(build), Path(submission)
    lab = re.match(r"^(lab\d\d)", submission.name)
    lab = lab.group(1) if lab else "lab"
    text = source.data.decode("utf-8", errors="replace")
    commands = compile_commands_for(build, submission)
    if not commands:
        return f"its compiled code could not be checked: no compile command builds {source.name}"
    objects = []
    for directory, _, args in commands:
        out = object_of(args, directory)
        if out is not None:
            objects.append((directory, args, out))
    student_objects = {o for _, _, o in objects}
    problem = hidden_lines(text, source.name)
    if problem:
        return problem
    with tempfile.TemporaryDirectory(prefix="codecheck-") as work:
        for directory, args, _ in objects:
            for pre in preprocess(args, directory, work):
                problem = check_source_text(submission_lines(pre, submission), source.name,
                                            text, simulator_attributes(pre, submission))
                # Only a #define in the submission's own text can change a header.
                if not problem and re.search(r"^\s*#\s*define\b", text, re.M):
                    problem = check_macros(pre, submission, source.name)
                if problem:
                    return problem
    for directory, args, out in objects:
        if not out.exists():
            return f"its compiled code could not be checked: {out.name} was not built"
        try:
            problem = check_object(out, lab, submission, source.name, text, host_compiler(args),
                                   course_objects_defined(out, student_objects),
                                   nvcc=Path(args[0]).name.startswith("nvcc"))
        except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
            return f"its compiled code could not be checked: {e}"
        if problem:
            return problem
    return ""
