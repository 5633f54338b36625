/* OpenCL object tracking: programs (source or binary, build options,
 * devices), kernels (creation, cloning, release) and their argument state,
 * memory objects (buffers and sub-buffers with sizes; images with their
 * descriptor's extent and samplers: hooks/opencl_image.c; pipes are
 * remembered only to pass their kernels through untuned). Each wrapper calls
 * the real function first and records only what succeeded, so return codes
 * and error codes are the runtime's own. */
#include "hooks/opencl_internal.h"
#include "hooks/opencl_mem.h"

#include "core/log.h"

#include <stdlib.h>
#include <string.h>

static aoe_ptr_slot g_prog_slots[1u << 14];
static aoe_ptr_slot g_kern_slots[1u << 16];
static aoe_ptr_slot g_mem_slots[1u << 17];
aoe_ptr_table aoe_cl_programs = AOE_PTR_TABLE_INIT(g_prog_slots);
aoe_ptr_table aoe_cl_kernels = AOE_PTR_TABLE_INIT(g_kern_slots);
aoe_ptr_table aoe_cl_mems = AOE_PTR_TABLE_INIT(g_mem_slots);

/* ------------------------------------------------------------ programs */

static aoe_cl_program *program_new(cl_program prog, cl_context ctx, int kind)
{
    aoe_cl_program *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    atomic_init(&p->refs, 1);
    p->prog = prog;
    p->ctx = ctx;
    p->kind = kind;
    return p;
}

static void program_publish(aoe_cl_program *p)
{
    aoe_cl_program *old = aoe_ptr_find(&aoe_cl_programs, p->prog);
    if (aoe_ptr_insert(&aoe_cl_programs, p->prog, p)) {
        aoe_cl_program_unref(p);
        return;
    }
    if (old) aoe_cl_program_unref(old); /* the runtime reused a released handle */
}

void aoe_cl_program_unref(aoe_cl_program *p)
{
    if (!p || atomic_fetch_sub(&p->refs, 1) != 1) return;
    aoe_variant *v = atomic_load(&p->variants);
    while (v) {
        aoe_variant *next = v->next;
        aoe_cl_variant *cv = (aoe_cl_variant *)v;
        if (cv->vprog) REAL(clReleaseProgram)(cv->vprog);
        free(v->defines);
        free(cv);
        v = next;
    }
    free(p->source);
    free(p->binary);
    free(p->options);
    free(p->devs);
    free(p);
}

EXPORT cl_program clCreateProgramWithSource(cl_context ctx, cl_uint count, const char **strings,
                                            const size_t *lengths, cl_int *err)
{
    NO_REAL_PTR(clCreateProgramWithSource, err);
    cl_program prog = REAL(clCreateProgramWithSource)(ctx, count, strings, lengths, err);
    if (!prog || !aoe_shim_init() || !strings) return prog;
    size_t total = 0;
    for (cl_uint i = 0; i < count; i++) {
        if (!strings[i]) return prog;
        total += (lengths && lengths[i]) ? lengths[i] : strlen(strings[i]);
    }
    aoe_cl_program *p = program_new(prog, ctx, AOE_PROG_SOURCE);
    if (!p) return prog;
    p->source = malloc(total + 1);
    if (!p->source) {
        aoe_cl_program_unref(p);
        return prog;
    }
    size_t off = 0;
    for (cl_uint i = 0; i < count; i++) {
        size_t n = (lengths && lengths[i]) ? lengths[i] : strlen(strings[i]);
        memcpy(p->source + off, strings[i], n);
        off += n;
    }
    p->source[total] = '\0';
    /* The job file carries the source as a string: key by what it carries. */
    p->source_len = strlen(p->source);
    p->hash = aoe_program_hash(p->source, p->source_len);
    program_publish(p);
    return prog;
}

EXPORT cl_program clCreateProgramWithBinary(cl_context ctx, cl_uint ndev, const cl_device_id *devs,
                                            const size_t *lengths, const unsigned char **binaries,
                                            cl_int *status, cl_int *err)
{
    NO_REAL_PTR(clCreateProgramWithBinary, err);
    cl_program prog =
        REAL(clCreateProgramWithBinary)(ctx, ndev, devs, lengths, binaries, status, err);
    if (!prog || !aoe_shim_init() || !ndev || !lengths || !binaries || !binaries[0] || !lengths[0])
        return prog;
    /* Programs restored from a compiled-kernel cache (pyopencl, CLBlast):
     * keyed by the binary; work-group sizes still apply to them. */
    aoe_cl_program *p = program_new(prog, ctx, AOE_PROG_BINARY);
    if (!p) return prog;
    p->binary = malloc(lengths[0]);
    if (!p->binary) {
        aoe_cl_program_unref(p);
        return prog;
    }
    memcpy(p->binary, binaries[0], lengths[0]);
    p->binary_len = lengths[0];
    p->hash = aoe_program_hash(p->binary, p->binary_len);
    program_publish(p);
    return prog;
}

EXPORT cl_int clBuildProgram(cl_program prog, cl_uint ndev, const cl_device_id *devs,
                             const char *options, void(CL_CALLBACK *notify)(cl_program, void *),
                             void *user_data)
{
    NO_REAL_INT(clBuildProgram);
    cl_int rc = REAL(clBuildProgram)(prog, ndev, devs, options, notify, user_data);
    if (rc != CL_SUCCESS || !aoe_shim_active) return rc;
    aoe_cl_program *p = aoe_ptr_find(&aoe_cl_programs, prog);
    if (!p) return rc;
    char *opts = strdup(options ? options : "");
    cl_device_id *copy = NULL;
    if (ndev && devs && (copy = malloc(ndev * sizeof *copy)))
        memcpy(copy, devs, ndev * sizeof *copy);
    if (!opts || (ndev && devs && !copy)) {
        free(opts);
        free(copy);
        p->kind = AOE_PROG_UNTUNED;
        return rc;
    }
    free(p->options);
    free(p->devs);
    p->options = opts;
    p->devs = copy;
    p->ndev = copy ? ndev : 0;
    return rc;
}

EXPORT cl_int clReleaseProgram(cl_program prog)
{
    NO_REAL_INT(clReleaseProgram);
    cl_uint refs = 0;
    int tracked = aoe_shim_active && aoe_ptr_find(&aoe_cl_programs, prog) != NULL;
    if (tracked && REAL(clGetProgramInfo)(prog, CL_PROGRAM_REFERENCE_COUNT, sizeof refs, &refs,
                                          NULL) != CL_SUCCESS)
        refs = 0;
    cl_int rc = REAL(clReleaseProgram)(prog);
    if (rc == CL_SUCCESS && tracked && refs == 1)
        aoe_cl_program_unref(aoe_ptr_remove(&aoe_cl_programs, prog));
    return rc;
}

/* ------------------------------------------------------------ kernels */

enum { ARG_UNKNOWN = 0, ARG_POINTER = 1, ARG_LOCAL = 2, ARG_IMAGE = 3, ARG_SAMPLER = 4 };

/* Kernel argument kinds from the argument info (PoCL and most drivers give
 * it even without -cl-kernel-arg-info; without it, values decide). Returns
 * 0, or why the kernel cannot be tuned (AOE_NT_*; kr->nt_detail says which
 * argument). */
static int classify_args(aoe_cl_kernel *kr)
{
    for (cl_uint i = 0; i < kr->nargs; i++) {
        cl_kernel_arg_address_qualifier q = 0;
        char type[128] = "";
        if (REAL(clGetKernelArgInfo)(kr->k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof q, &q,
                                     NULL) != CL_SUCCESS) {
            kr->arg_is_mem[i] = ARG_UNKNOWN;
            continue;
        }
        if (REAL(clGetKernelArgInfo)(kr->k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type - 1, type,
                                     NULL) != CL_SUCCESS)
            type[0] = '\0';
        /* replaying these needs more than bytes, sizes and descriptors */
        if (strstr(type, "pipe") || strstr(type, "queue_t") || strstr(type, "event_t")) {
            /* the detail is a label: a long type name is cut (%.40s) */
            snprintf(kr->nt_detail, sizeof kr->nt_detail, "argument %u is %.40s", i, type);
            return AOE_NT_PIPE;
        }
        /* image2d_t, image1d_buffer_t, ...; sampler_t (a pointer to a struct
         * whose name says image is a pointer) */
        int handle = !strchr(type, '*');
        if (handle && strstr(type, "image"))
            kr->arg_is_mem[i] = ARG_IMAGE;
        else if (handle && strstr(type, "sampler"))
            kr->arg_is_mem[i] = ARG_SAMPLER;
        else if (q == CL_KERNEL_ARG_ADDRESS_LOCAL)
            kr->arg_is_mem[i] = ARG_LOCAL;
        else if (q == CL_KERNEL_ARG_ADDRESS_GLOBAL || q == CL_KERNEL_ARG_ADDRESS_CONSTANT)
            kr->arg_is_mem[i] = ARG_POINTER;
        else
            kr->arg_is_mem[i] = ARG_UNKNOWN;
    }
    return 0;
}

static void kernel_free(aoe_cl_kernel *kr)
{
    if (!kr) return;
    aoe_cl_flush_kernel_counts(kr);
    aoe_cl_kernel_free_variants(kr);
    for (cl_uint i = 0; i < kr->nargs; i++)
        if (kr->args[i].value != kr->args[i].inline_value) free(kr->args[i].value);
    free(kr->args);
    free(kr->shapes);
    free(kr->arg_is_mem);
    aoe_cl_program_unref(kr->prog);
    free(kr);
}

static aoe_cl_kernel *kernel_alloc(cl_kernel k, aoe_cl_program *p, cl_uint nargs)
{
    aoe_cl_kernel *kr = calloc(1, sizeof *kr);
    if (!kr) return NULL;
    kr->k = k;
    kr->nargs = nargs;
    kr->args = calloc(nargs ? nargs : 1, sizeof *kr->args);
    kr->shapes = calloc(nargs ? nargs : 1, sizeof *kr->shapes);
    kr->arg_is_mem = calloc(nargs ? nargs : 1, 1);
    if (!kr->args || !kr->shapes || !kr->arg_is_mem) {
        free(kr->args);
        free(kr->shapes);
        free(kr->arg_is_mem);
        free(kr);
        return NULL;
    }
    for (cl_uint i = 0; i < nargs; i++) kr->args[i].value = kr->args[i].inline_value;
    if (p) atomic_fetch_add(&p->refs, 1); /* none for a kernel of an untracked program */
    kr->prog = p;
    return kr;
}

static void kernel_publish(aoe_cl_kernel *kr)
{
    aoe_cl_kernel *old = aoe_ptr_find(&aoe_cl_kernels, kr->k);
    if (aoe_ptr_insert(&aoe_cl_kernels, kr->k, kr)) {
        kernel_free(kr);
        return;
    }
    kernel_free(old); /* a released handle value reused by the runtime */
}

/* A kernel object the shim passes through: tracked with no arguments, so
 * its first launch records why (aoe_cl_launch_untunable). */
static aoe_cl_kernel *untunable_kernel(cl_kernel k, const char *name, int why, const char *detail)
{
    aoe_cl_kernel *kr = kernel_alloc(k, NULL, 0);
    if (!kr) return NULL;
    kr->untunable = why;
    snprintf(kr->name, sizeof kr->name, "%s", name);
    snprintf(kr->nt_detail, sizeof kr->nt_detail, "%s", detail);
    return kr;
}

static int kernel_name(cl_kernel k, char *out, size_t len)
{
    if (REAL(clGetKernelInfo)(k, CL_KERNEL_FUNCTION_NAME, len, out, NULL) != CL_SUCCESS) return -1;
    out[len - 1] = '\0';
    return 0;
}

static void track_kernel(cl_program prog, cl_kernel k, const char *name)
{
    char fname[128];
    if (!name) {
        if (kernel_name(k, fname, sizeof fname)) return;
        name = fname;
    }
    aoe_cl_program *p = aoe_ptr_find(&aoe_cl_programs, prog);
    if (!p || p->kind == AOE_PROG_UNTUNED || !p->options) {
        const char *why = !p                            ? "not created from source or binary"
                          : p->kind == AOE_PROG_UNTUNED ? "out of memory at its build"
                                                        : "build not seen";
        aoe_cl_kernel *kr = untunable_kernel(k, name, AOE_NT_PROGRAM, why);
        if (kr) kernel_publish(kr);
        return;
    }
    cl_uint nargs = 0;
    if (REAL(clGetKernelInfo)(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL) != CL_SUCCESS ||
        nargs > 4096)
        return;
    aoe_cl_kernel *kr = kernel_alloc(k, p, nargs);
    if (!kr) return;
    snprintf(kr->name, sizeof kr->name, "%s", name);
    kr->untunable = classify_args(kr); /* its arguments are then never recorded */
    kernel_publish(kr);
}

/* Bounded, so a program launching kernels the shim cannot track pays the
 * lookup of the name a limited number of times. */
#define MAX_UNSEEN_KERNELS 1024
static atomic_int g_unseen;
static pthread_mutex_t g_unseen_lock = PTHREAD_MUTEX_INITIALIZER;

aoe_cl_kernel *aoe_cl_kernel_unseen(cl_kernel k)
{
    if (atomic_load_explicit(&g_unseen, memory_order_relaxed) >= MAX_UNSEEN_KERNELS ||
        atomic_fetch_add_explicit(&g_unseen, 1, memory_order_relaxed) >= MAX_UNSEEN_KERNELS)
        return NULL; /* past the bound: one relaxed load per launch */
    char name[128];
    if (kernel_name(k, name, sizeof name)) snprintf(name, sizeof name, "?");
    /* One record per object: two threads launching it first race here. */
    pthread_mutex_lock(&g_unseen_lock);
    aoe_cl_kernel *kr = aoe_ptr_find(&aoe_cl_kernels, k);
    if (!kr && (kr = untunable_kernel(k, name, AOE_NT_UNSEEN, "its creation was not seen")) &&
        aoe_ptr_insert(&aoe_cl_kernels, k, kr)) {
        kernel_free(kr);
        kr = NULL;
    }
    pthread_mutex_unlock(&g_unseen_lock);
    return kr;
}

EXPORT cl_kernel clCreateKernel(cl_program prog, const char *name, cl_int *err)
{
    NO_REAL_PTR(clCreateKernel, err);
    cl_kernel k = REAL(clCreateKernel)(prog, name, err);
    if (k && aoe_shim_init() && name) track_kernel(prog, k, name);
    return k;
}

EXPORT cl_int clCreateKernelsInProgram(cl_program prog, cl_uint n, cl_kernel *kernels,
                                       cl_uint *n_ret)
{
    NO_REAL_INT(clCreateKernelsInProgram);
    cl_uint got = 0;
    cl_int rc = REAL(clCreateKernelsInProgram)(prog, n, kernels, &got);
    if (n_ret) *n_ret = got;
    if (rc != CL_SUCCESS || !kernels || !aoe_shim_init()) return rc;
    for (cl_uint i = 0; i < got && i < n; i++) track_kernel(prog, kernels[i], NULL);
    return rc;
}

EXPORT cl_kernel clCloneKernel(cl_kernel src, cl_int *err)
{
    NO_REAL_PTR(clCloneKernel, err);
    cl_kernel k = REAL(clCloneKernel)(src, err);
    if (!k || !aoe_shim_active) return k;
    aoe_cl_kernel *s = aoe_ptr_find(&aoe_cl_kernels, src);
    if (!s) return k;
    aoe_cl_kernel *kr = kernel_alloc(k, s->prog, s->nargs);
    if (!kr) return k;
    memcpy(kr->name, s->name, sizeof kr->name);
    kr->untunable = s->untunable;
    memcpy(kr->nt_detail, s->nt_detail, sizeof kr->nt_detail);
    memcpy(kr->arg_is_mem, s->arg_is_mem, s->nargs);
    for (cl_uint i = 0; i < s->nargs; i++) {
        aoe_cl_arg *a = &kr->args[i];
        const aoe_cl_arg *b = &s->args[i];
        unsigned char *keep = a->inline_value;
        *a = *b;
        a->value = keep;
        a->version = 1;
        if (b->value != b->inline_value) {
            a->cap = b->size;
            a->value = malloc(b->size);
            if (!a->value) {
                a->value = keep;
                kr->untunable = AOE_NT_ARG;
                continue;
            }
        }
        if (!b->is_null && b->size) memcpy(a->value, b->value, b->size);
        a->shape.bytes = a->shape.kind == AOE_ARGK_SCALAR ? a->value : NULL;
        kr->shapes[i] = a->shape;
    }
    kr->shape_version = kr->arg_version = 1;
    kernel_publish(kr);
    return k;
}

EXPORT cl_int clReleaseKernel(cl_kernel k)
{
    NO_REAL_INT(clReleaseKernel);
    aoe_cl_kernel *kr = aoe_shim_active ? aoe_ptr_find(&aoe_cl_kernels, k) : NULL;
    cl_uint refs = 0;
    if (kr &&
        REAL(clGetKernelInfo)(k, CL_KERNEL_REFERENCE_COUNT, sizeof refs, &refs, NULL) != CL_SUCCESS)
        refs = 0;
    cl_int rc = REAL(clReleaseKernel)(k);
    if (rc == CL_SUCCESS && kr && refs == 1) kernel_free(aoe_ptr_remove(&aoe_cl_kernels, k));
    return rc;
}

static int same_shape(const aoe_arg_shape *a, const aoe_arg_shape *b)
{
    if (a->kind != b->kind || a->size != b->size || a->extent != b->extent) return 0;
    return a->kind != AOE_ARGK_SCALAR || !memcmp(a->bytes, b->bytes, a->size);
}

/* Why the memory object with table value v cannot be an image argument
 * (the detail's end), or NULL when it can. */
static const char *image_refusal(uintptr_t v)
{
    if ((v & 3) == AOE_CL_MEM_IMAGE) return NULL;
    if ((v & 3) != AOE_CL_MEM_OPAQUE) return v ? "a buffer" : "an image not seen created";
    switch (v >> 2) {
    case AOE_CL_OPAQUE_IMAGE_FROM_BUFFER:
        return "an image made from a buffer";
    case AOE_CL_OPAQUE_IMAGE_FROM_IMAGE:
        return "an image made from another image";
    case AOE_CL_OPAQUE_PIPE:
        return "a pipe";
    default:
        return "an image of unknown descriptor";
    }
}

static void record_arg(aoe_cl_kernel *kr, cl_uint idx, size_t size, const void *value)
{
    aoe_cl_arg *a = &kr->args[idx];
    int kind = kr->arg_is_mem[idx];
    aoe_arg_shape ns = {AOE_ARGK_UNSET, 0, 0, NULL};
    cl_mem mem = NULL;
    if (kind == ARG_IMAGE || kind == ARG_SAMPLER) {
        /* handles only: the runtime refused any other size or a NULL */
        uintptr_t v = 0;
        if (value && size == sizeof(void *)) {
            void *h;
            memcpy(&h, value, sizeof h);
            v = (uintptr_t)aoe_ptr_find(kind == ARG_IMAGE ? &aoe_cl_mems : &aoe_cl_samplers, h);
            if (kind == ARG_IMAGE) mem = h;
        }
        const char *why = kind == ARG_IMAGE ? image_refusal(v)
                          : v               ? NULL
                                            : "a sampler not seen created";
        if (why) {
            kr->untunable = AOE_NT_IMAGE;
            snprintf(kr->nt_detail, sizeof kr->nt_detail, "argument %u is %s", idx, why);
            return;
        }
        ns = kind == ARG_IMAGE
                 ? (aoe_arg_shape){AOE_ARGK_IMAGE, 0, (uint64_t)(v >> 2), NULL}
                 : (aoe_arg_shape){AOE_ARGK_SAMPLER, 0, (uint64_t)(v & ~AOE_CL_SAMPLER_TAG), NULL};
    } else if (!value) {
        if (kind == ARG_LOCAL || (kind == ARG_UNKNOWN && size != sizeof(cl_mem)))
            ns = (aoe_arg_shape){AOE_ARGK_LOCAL, 0, size, NULL};
        else
            ns = (aoe_arg_shape){AOE_ARGK_NULLMEM, 0, 0, NULL};
    } else if (size == sizeof(cl_mem) && kind != ARG_LOCAL) {
        memcpy(&mem, value, sizeof mem);
        uintptr_t v = (uintptr_t)aoe_ptr_find(&aoe_cl_mems, mem);
        uintptr_t sv = kind == ARG_UNKNOWN && !v ? (uintptr_t)aoe_ptr_find(&aoe_cl_samplers, mem)
                                                 : 0; /* no argument info: a sampler? */
        if ((v & 3) == AOE_CL_MEM_BUFFER) {
            ns = (aoe_arg_shape){AOE_ARGK_BUFFER, 0, (uint64_t)(v >> 2), NULL};
        } else if ((v & 3) == AOE_CL_MEM_IMAGE && kind == ARG_UNKNOWN) {
            ns = (aoe_arg_shape){AOE_ARGK_IMAGE, 0, (uint64_t)(v >> 2), NULL};
        } else if (sv) {
            mem = NULL;
            ns = (aoe_arg_shape){AOE_ARGK_SAMPLER, 0, (uint64_t)(sv & ~AOE_CL_SAMPLER_TAG), NULL};
        } else if (v || kind == ARG_POINTER) {
            /* an image it cannot replay, a pipe, or a memory object never seen */
            kr->untunable = v ? AOE_NT_IMAGE : AOE_NT_UNKNOWN_MEM;
            if (v)
                snprintf(kr->nt_detail, sizeof kr->nt_detail, "argument %u is %s", idx,
                         image_refusal(v) ? image_refusal(v) : "an image");
            else
                snprintf(kr->nt_detail, sizeof kr->nt_detail, "argument %u", idx);
            return;
        } else {
            mem = NULL;
            ns = (aoe_arg_shape){AOE_ARGK_SCALAR, (uint32_t)size, 0, NULL};
        }
    } else {
        if (size > UINT32_MAX) {
            kr->untunable = AOE_NT_ARG;
            snprintf(kr->nt_detail, sizeof kr->nt_detail, "argument %u: %zu bytes", idx, size);
            return;
        }
        ns = (aoe_arg_shape){AOE_ARGK_SCALAR, (uint32_t)size, 0, NULL};
    }
    /* Keep the bytes as passed (scalars; the handle for memory objects):
     * they are what a variant kernel gets and what a captured job replays. */
    unsigned char *store = a->inline_value;
    if (value && size > sizeof a->inline_value) {
        if (a->value != a->inline_value && a->cap >= size)
            store = a->value;
        else if (!(store = malloc(size))) {
            kr->untunable = AOE_NT_ARG;
            return;
        }
    }
    ns.bytes = ns.kind == AOE_ARGK_SCALAR ? value : NULL;
    int changed = !same_shape(&a->shape, &ns); /* before the old bytes are overwritten */
    if (value && size) memcpy(store, value, size);
    if (a->value != a->inline_value && a->value != store) free(a->value);
    if (store != a->inline_value && store != a->value) a->cap = size;
    a->value = store;
    a->size = size;
    a->is_null = value == NULL;
    a->mem = mem;
    if (ns.kind == AOE_ARGK_SCALAR) ns.bytes = store;
    a->shape = ns;
    kr->shapes[idx] = ns;
    a->version++;
    kr->arg_version++;
    if (changed) kr->shape_version++;
}

EXPORT cl_int clSetKernelArg(cl_kernel k, cl_uint idx, size_t size, const void *value)
{
    NO_REAL_INT(clSetKernelArg);
    cl_int rc = REAL(clSetKernelArg)(k, idx, size, value);
    if (rc != CL_SUCCESS || !aoe_shim_active) return rc;
    aoe_cl_kernel *kr = aoe_ptr_find(&aoe_cl_kernels, k);
    if (kr && idx < kr->nargs && !kr->untunable) record_arg(kr, idx, size, value);
    return rc;
}

EXPORT cl_int clSetKernelArgSVMPointer(cl_kernel k, cl_uint idx, const void *value)
{
    NO_REAL_INT(clSetKernelArgSVMPointer);
    cl_int rc = REAL(clSetKernelArgSVMPointer)(k, idx, value);
    aoe_cl_kernel *kr = aoe_shim_active ? aoe_ptr_find(&aoe_cl_kernels, k) : NULL;
    if (rc == CL_SUCCESS && kr && !kr->untunable) {
        kr->untunable = AOE_NT_SVM; /* SVM contents cannot be captured */
        snprintf(kr->nt_detail, sizeof kr->nt_detail, "argument %u", idx);
    }
    return rc;
}

EXPORT cl_int clSetKernelExecInfo(cl_kernel k, cl_kernel_exec_info name, size_t size,
                                  const void *value)
{
    NO_REAL_INT(clSetKernelExecInfo);
    cl_int rc = REAL(clSetKernelExecInfo)(k, name, size, value);
    aoe_cl_kernel *kr = aoe_shim_active ? aoe_ptr_find(&aoe_cl_kernels, k) : NULL;
    if (rc == CL_SUCCESS && kr && !kr->untunable) kr->untunable = AOE_NT_EXEC_INFO;
    return rc;
}

void aoe_cl_flush_counts(void)
{
    const aoe_ptr_table *t = &aoe_cl_kernels;
    for (size_t i = 0; i <= t->mask; i++) {
        uintptr_t key = atomic_load_explicit(&t->slots[i].key, memory_order_acquire);
        if (key < 2) continue;
        aoe_cl_kernel *kr = atomic_load_explicit(&t->slots[i].val, memory_order_acquire);
        if (kr) aoe_cl_flush_kernel_counts(kr);
    }
}

void aoe_cl_atfork_child(void)
{
    aoe_ptr_table_atfork_child(&aoe_cl_programs);
    aoe_ptr_table_atfork_child(&aoe_cl_kernels);
    aoe_ptr_table_atfork_child(&aoe_cl_mems);
    aoe_ptr_table_atfork_child(&aoe_cl_samplers);
    pthread_mutex_init(&g_unseen_lock, NULL);
    aoe_not_tuned_atfork_child();
    aoe_cl_mem_atfork_child();
    aoe_cl_device_atfork_child();
    aoe_cl_launch_atfork_child();
}

EXPORT cl_int clReleaseCommandQueue(cl_command_queue q)
{
    NO_REAL_INT(clReleaseCommandQueue);
    if (aoe_shim_active) aoe_cl_queue_forget(q); /* re-queried if still alive */
    return REAL(clReleaseCommandQueue)(q);
}

/* ------------------------------------------------------------ memory objects */

void aoe_cl_track_mem(cl_mem m, uintptr_t value)
{
    if (m && aoe_shim_init()) aoe_ptr_insert(&aoe_cl_mems, m, (void *)value);
}

EXPORT cl_mem clCreateBuffer(cl_context ctx, cl_mem_flags flags, size_t size, void *host,
                             cl_int *err)
{
    NO_REAL_PTR(clCreateBuffer, err);
    cl_mem m = REAL(clCreateBuffer)(ctx, flags, size, host, err);
    aoe_cl_track_mem(m, aoe_cl_mem_buffer_value(size));
    if (m && aoe_shim_active) aoe_cl_mem_created(m, flags, NULL);
    return m;
}

EXPORT cl_mem clCreateBufferWithProperties(cl_context ctx, const cl_mem_properties *props,
                                           cl_mem_flags flags, size_t size, void *host, cl_int *err)
{
    NO_REAL_PTR(clCreateBufferWithProperties, err);
    cl_mem m = REAL(clCreateBufferWithProperties)(ctx, props, flags, size, host, err);
    aoe_cl_track_mem(m, aoe_cl_mem_buffer_value(size));
    if (m && aoe_shim_active) aoe_cl_mem_created(m, flags, NULL);
    return m;
}

EXPORT cl_mem clCreateSubBuffer(cl_mem buf, cl_mem_flags flags, cl_buffer_create_type type,
                                const void *info, cl_int *err)
{
    NO_REAL_PTR(clCreateSubBuffer, err);
    cl_mem m = REAL(clCreateSubBuffer)(buf, flags, type, info, err);
    if (m && info && type == CL_BUFFER_CREATE_TYPE_REGION) {
        aoe_cl_track_mem(m, aoe_cl_mem_buffer_value(((const cl_buffer_region *)info)->size));
        if (aoe_shim_active) aoe_cl_mem_created(m, flags, buf);
    }
    return m;
}

EXPORT cl_mem clCreatePipe(cl_context ctx, cl_mem_flags flags, cl_uint packet, cl_uint maxp,
                           const cl_pipe_properties *props, cl_int *err)
{
    NO_REAL_PTR(clCreatePipe, err);
    cl_mem m = REAL(clCreatePipe)(ctx, flags, packet, maxp, props, err);
    aoe_cl_track_mem(m, aoe_cl_mem_opaque_value(AOE_CL_OPAQUE_PIPE));
    return m;
}

EXPORT cl_int clReleaseMemObject(cl_mem m)
{
    NO_REAL_INT(clReleaseMemObject);
    int tracked = aoe_shim_active && aoe_ptr_find(&aoe_cl_mems, m) != NULL;
    cl_uint refs = 0;
    if (tracked &&
        REAL(clGetMemObjectInfo)(m, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL) != CL_SUCCESS)
        refs = 0;
    cl_int rc = REAL(clReleaseMemObject)(m);
    if (rc == CL_SUCCESS && tracked && refs == 1) {
        if (aoe_cl_mem_has_contents((uintptr_t)aoe_ptr_find(&aoe_cl_mems, m)))
            aoe_cl_mem_released(m);
        aoe_ptr_remove(&aoe_cl_mems, m);
    }
    return rc;
}
