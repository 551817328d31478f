/*
 * The Python code that allocates. In a Python program every big block is
 * malloc'd by CPython or by an extension (NumPy's data allocator: an
 * array's data), from C frames that are the same for every line of the
 * program — the interpreter's eval loop runs them all — so the calling
 * context of such a block is the Python frames: this thread's frames of
 * the interpreter, innermost first, each its code object and line.
 * Frames of code installed with Python (its standard library, site- and
 * dist-packages: NumPy's own Python code, e.g. numpy.ones) are skipped as
 * the runtimes' native frames are (runtime.c); when nothing else runs, they
 * are the context.
 *
 * How, safely inside malloc: the frames are read straight from this
 * thread's own thread state (PyGILState_GetThisThreadState: a thread-local
 * lookup), never through the C API calls that materialise frame objects —
 * those allocate, and a collection they may trigger would run arbitrary
 * finalizers inside malloc. Only this thread changes its frames, so they
 * can be read with or without the GIL (NumPy releases it while it works);
 * a frame on the stack keeps its code object alive, and a code object's
 * file name is immutable. Nothing is read while the interpreter finalizes.
 * The layout read is the interpreter's internal one
 * (internal/pycore_frame.h) of the CPython minor version whose headers the
 * library was built with (LOCI_PYTHON's); another version's process gets
 * native contexts only, said once at info level.
 */
#ifdef LOCI_TIER_PYTHON_FRAMES
#define Py_BUILD_CORE 1
#include <Python.h> /* first: it sets the feature macros */
#include <internal/pycore_frame.h>
#endif

#include "tier.h"

#include <dlfcn.h>
#include <string.h>

#define WALK_MAX 64 /* Python frames looked at, at most: a bound on the cost */

#if defined(LOCI_TIER_PYTHON_FRAMES) && PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000

static struct {
    PyThreadState *(*this_thread)(void);
    int (*finalizing)(void);
    int (*line_of)(PyCodeObject *, int);
} py;
static bool on;

const void *python_setup(void)
{
    const unsigned long *version = dlsym(RTLD_DEFAULT, "Py_Version");
    void *eval = dlsym(RTLD_DEFAULT, "_PyEval_EvalFrameDefault");
    if (!version || !eval)
        return NULL; /* not CPython 3.11 or later */
    if ((*version >> 16) != (PY_VERSION_HEX >> 16)) {
        tier_log(LOCI_LOG_INFO, "Python %lu.%lu: its allocation sites are native frames only (libloci-tier.so "
                 "reads the frames of Python %d.%d)", *version >> 24, (*version >> 16) & 0xff, PY_MAJOR_VERSION,
                 PY_MINOR_VERSION);
        return eval;
    }
    py.this_thread = (PyThreadState * (*)(void)) dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
    py.finalizing = (int (*)(void))dlsym(RTLD_DEFAULT, "_Py_IsFinalizing");
    py.line_of = (int (*)(PyCodeObject *, int))dlsym(RTLD_DEFAULT, "PyCode_Addr2Line");
    on = py.this_thread && py.finalizing && py.line_of;
    return eval;
}

/* Code installed with Python: its standard library, site- and dist-packages, frozen modules. */
static bool library_code(PyCodeObject *code)
{
    PyObject *file = code->co_filename;
    if (!file || !PyUnicode_Check(file) || PyUnicode_KIND(file) != PyUnicode_1BYTE_KIND)
        return false;
    const char *text = (const char *)PyUnicode_DATA(file);
    size_t n = (size_t)PyUnicode_GET_LENGTH(file);
    return memmem(text, n, "/lib/python", 11) || (n > 8 && memcmp(text, "<frozen ", 8) == 0);
}

/* The line of a code object's instruction, asked of the interpreter once per thread and place:
 * the line, not the instruction, names a frame, for one line's call runs from another instruction
 * once the interpreter has specialised it (PRECALL making the call CALL made). A code object freed
 * and another made at its address may read a wrong line from here: a site misnamed, nothing worse. */
#define LINES_CACHED 64
static __thread struct {
    const void *code;
    int offset, line;
} lines[LINES_CACHED] __attribute__((tls_model("initial-exec")));

static int line_of(PyCodeObject *code, int offset)
{
    size_t i = ((uintptr_t)code >> 4 ^ (uintptr_t)offset * 0x9E37u) % LINES_CACHED;
    if (lines[i].code != code || lines[i].offset != offset) {
        int line = py.line_of(code, offset * (int)sizeof(_Py_CODEUNIT));
        lines[i].code = code, lines[i].offset = offset, lines[i].line = line > 0 ? line : 0;
    }
    return lines[i].line;
}

int python_frames(tier_frame_t *out, int max)
{
    if (!on || py.finalizing())
        return 0;
    PyThreadState *ts = py.this_thread();
    if (!ts || !ts->cframe)
        return 0;
    int n = 0, library = 0, walked = 0;
    tier_frame_t innermost[LOCI_TIER_CONTEXT_MAX]; /* library frames, for a stack of nothing else */
    for (_PyInterpreterFrame *f = ts->cframe->current_frame; f && n < max && walked < WALK_MAX;
         f = f->previous, walked++) {
        if (_PyFrame_IsIncomplete(f))
            continue; /* being set up: not running yet */
        tier_frame_t frame = {.code = f->f_code, .line = (uintptr_t)line_of(f->f_code, _PyInterpreterFrame_LASTI(f))};
        if (!library_code(f->f_code))
            out[n++] = frame;
        else if (library < max && library < LOCI_TIER_CONTEXT_MAX)
            innermost[library++] = frame;
    }
    if (n > 0)
        return n;
    memcpy(out, innermost, (size_t)library * sizeof *innermost);
    return library;
}

/* The code point at i of a string of kind `kind` as UTF-8 at out (room for 4). */
static size_t utf8(int kind, const void *data, Py_ssize_t i, char *out)
{
    Py_UCS4 c = PyUnicode_READ(kind, data, i);
    if (c < 0x80)
        return out[0] = (char)c, 1;
    if (c < 0x800)
        return out[0] = (char)(0xC0 | c >> 6), out[1] = (char)(0x80 | (c & 0x3F)), 2;
    if (c < 0x10000)
        return out[0] = (char)(0xE0 | c >> 12), out[1] = (char)(0x80 | ((c >> 6) & 0x3F)),
               out[2] = (char)(0x80 | (c & 0x3F)), 3;
    return out[0] = (char)(0xF0 | c >> 18), out[1] = (char)(0x80 | ((c >> 12) & 0x3F)),
           out[2] = (char)(0x80 | ((c >> 6) & 0x3F)), out[3] = (char)(0x80 | (c & 0x3F)), 4;
}

const char *python_describe(const tier_frame_t *f, char *buf, size_t len, unsigned *line)
{
    *line = (unsigned)f->line;
    PyObject *file = ((PyCodeObject *)f->code)->co_filename;
    if (!file || !PyUnicode_Check(file))
        return "";
    if (PyUnicode_IS_COMPACT_ASCII(file))
        return (const char *)PyUnicode_DATA(file); /* NUL-terminated */
    int kind = PyUnicode_KIND(file);
    const void *data = PyUnicode_DATA(file);
    size_t used = 0;
    for (Py_ssize_t i = 0; i < PyUnicode_GET_LENGTH(file) && used + 5 <= len; i++)
        used += utf8(kind, data, i, buf + used);
    buf[used] = '\0';
    return buf;
}

#else /* no CPython 3.11 headers at build time: no Python frames */

const void *python_setup(void)
{
    void *eval = dlsym(RTLD_DEFAULT, "_PyEval_EvalFrameDefault");
    if (eval)
        tier_log(LOCI_LOG_INFO, "a Python program: its allocation sites are native frames only (libloci-tier.so "
                 "was built without the headers of CPython 3.11: apt-get install python3-dev, and build again)");
    return eval;
}

int python_frames(tier_frame_t *out, int max) { return 0; }

const char *python_describe(const tier_frame_t *f, char *buf, size_t len, unsigned *line)
{
    *line = 0;
    return "";
}

#endif
