/* CUDA graphs of the fake driver: a graph holds the kernel launches captured
 * into it (fcu_launch.c adds them while a stream is captured), in order; an
 * executable graph (cuGraphInstantiateWithFlags / WithParams) is a copy of
 * them that cuGraphLaunch and cuGraphLaunch_ptsz replay on the host, node
 * after node, as the launches would have run. As on the real driver, a
 * node keeps the values of its parameters from the time of the capture
 * (copied with the kernel's fakecuda_params_NAME sizes); a kernel with host
 * code but no such table cannot be copied, and instantiating its graph
 * answers CUDA_ERROR_NOT_SUPPORTED. Modules must stay loaded while a graph
 * of theirs is used (the nodes point at their functions). */
#include "fcu_graph.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define FCU_TAG_EXEC 0x47455845u /* "EXEG" */

struct fcu_graph_node {
    struct CUfunc_st *f;
    unsigned grid[3], block[3], shared;
    int uncopied;          /* host code, parameters not copied */
    unsigned nparams;      /* params[i] points into values */
    void **params;         /* NULL: none */
    unsigned char *values; /* the parameters' values, each at its own offset */
};

struct CUgraphExec_st {
    unsigned tag;
    unsigned n;
    struct fcu_graph_node *nodes;
};

static atomic_ulong g_replays[2]; /* cuGraphLaunch, cuGraphLaunch_ptsz */

static void node_free(struct fcu_graph_node *n)
{
    free(n->params);
    free(n->values);
}

/* dst = src's parameters (sizes from table) copied; 0 or -1 (memory). */
static int copy_params(struct fcu_graph_node *dst, const fakecuda_params *table, void *const *src)
{
    unsigned n = table->count < 32 ? table->count : 32;
    size_t total = 0;
    for (unsigned i = 0; i < n; i++) total += table->size[i];
    dst->params = calloc(n ? n : 1, sizeof *dst->params);
    dst->values = malloc(total ? total : 1);
    if (!dst->params || !dst->values) return -1;
    dst->nparams = n;
    size_t off = 0;
    for (unsigned i = 0; i < n; i++) {
        memcpy(dst->values + off, src[i], table->size[i]);
        dst->params[i] = dst->values + off;
        off += table->size[i];
    }
    return 0;
}

CUresult fcu_graph_capture(struct CUgraph_st *g, struct CUfunc_st *f, const unsigned grid[3],
                           const unsigned block[3], unsigned shared, void **params)
{
    if (g->kernel_nodes == g->cap) {
        unsigned cap = g->cap ? 2 * g->cap : 8;
        struct fcu_graph_node *nodes = realloc(g->nodes, cap * sizeof *nodes);
        if (!nodes) return CUDA_ERROR_OUT_OF_MEMORY;
        g->nodes = nodes;
        g->cap = cap;
    }
    struct fcu_graph_node *n = &g->nodes[g->kernel_nodes];
    memset(n, 0, sizeof *n);
    n->f = f;
    memcpy(n->grid, grid, sizeof n->grid);
    memcpy(n->block, block, sizeof n->block);
    n->shared = shared;
    if (f->host && (!f->params || !params)) n->uncopied = 1;
    if (f->host && f->params && params && copy_params(n, f->params, params)) {
        node_free(n);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    g->kernel_nodes++;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuGraphGetNodes(CUgraph g, CUgraphNode *nodes, size_t *n)
{
    if (!g || !n) return CUDA_ERROR_INVALID_VALUE;
    (void)nodes; /* the fake's nodes have no handles: count only */
    *n = g->kernel_nodes;
    return CUDA_SUCCESS;
}

static void free_nodes(struct fcu_graph_node *nodes, unsigned n)
{
    for (unsigned i = 0; i < n; i++) node_free(&nodes[i]);
    free(nodes);
}

FCU_EXPORT CUresult cuGraphDestroy(CUgraph g)
{
    if (!g) return CUDA_ERROR_INVALID_VALUE;
    free_nodes(g->nodes, g->kernel_nodes);
    free(g);
    return CUDA_SUCCESS;
}

/* ---- executable graphs ---- */

static CUresult instantiate(CUgraphExec *out, CUgraph g, CUgraphInstantiateResult *result)
{
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!out || !g) return CUDA_ERROR_INVALID_VALUE;
    for (unsigned i = 0; i < g->kernel_nodes; i++)
        if (g->nodes[i].uncopied) {
            if (result) *result = CUDA_GRAPH_INSTANTIATE_NODE_OPERATION_NOT_SUPPORTED;
            return CUDA_ERROR_NOT_SUPPORTED;
        }
    struct CUgraphExec_st *e = calloc(1, sizeof *e);
    if (e && g->kernel_nodes) e->nodes = calloc(g->kernel_nodes, sizeof *e->nodes);
    if (!e || (g->kernel_nodes && !e->nodes)) {
        free(e);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    for (unsigned i = 0; i < g->kernel_nodes; i++, e->n++) {
        const struct fcu_graph_node *s = &g->nodes[i];
        struct fcu_graph_node *d = &e->nodes[i];
        *d = *s;
        d->params = NULL, d->values = NULL, d->nparams = 0;
        if (s->params && copy_params(d, s->f->params, s->params)) {
            e->n++; /* d is freed with the others */
            free_nodes(e->nodes, e->n);
            free(e);
            return CUDA_ERROR_OUT_OF_MEMORY;
        }
    }
    e->tag = FCU_TAG_EXEC;
    *out = e;
    if (result) *result = CUDA_GRAPH_INSTANTIATE_SUCCESS;
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *out, CUgraph g,
                                                unsigned long long flags)
{
    (void)flags; /* auto-free, upload, device launch, priority: nothing to do on the host */
    return instantiate(out, g, NULL);
}

static CUresult with_params(CUgraphExec *out, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    p->hErrNode_out = NULL;
    p->result_out = CUDA_GRAPH_INSTANTIATE_ERROR;
    return instantiate(out, g, &p->result_out);
}

FCU_EXPORT CUresult cuGraphInstantiateWithParams(CUgraphExec *out, CUgraph g,
                                                 CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    return with_params(out, g, p);
}

FCU_EXPORT CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *out, CUgraph g,
                                                      CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
    return with_params(out, g, p);
}

static CUresult replay(int per_thread, CUgraphExec e, CUstream hs)
{
    static const char *const names[2] = {"cuGraphLaunch", "cuGraphLaunch_ptsz"};
    CUresult r = fcu_need_context();
    if (r) return r;
    if (!e || e->tag != FCU_TAG_EXEC) return CUDA_ERROR_INVALID_HANDLE;
    struct CUstream_st *s = fcu_stream(hs);
    if (s && s->capturing) return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED; /* no child graphs */
    fcu_set_last_launch(names[per_thread]);
    atomic_fetch_add(&g_replays[per_thread], 1);
    for (unsigned i = 0; i < e->n; i++) {
        const struct fcu_graph_node *n = &e->nodes[i];
        if (!n->f->host) continue;
        fakecuda_launch l = {{n->grid[0], n->grid[1], n->grid[2]},
                             {n->block[0], n->block[1], n->block[2]},
                             n->shared,
                             hs,
                             n->params,
                             NULL,
                             n->f->mod,
                             names[per_thread],
                             fcu_define,
                             fakecuda_clock_advance_us,
                             fcu_fault};
        n->f->host(&l);
    }
    return CUDA_SUCCESS;
}

FCU_EXPORT CUresult cuGraphLaunch(CUgraphExec e, CUstream s)
{
    return replay(0, e, s);
}

FCU_EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec e, CUstream s)
{
    return replay(1, e, s);
}

FCU_EXPORT CUresult cuGraphExecDestroy(CUgraphExec e)
{
    if (!e || e->tag != FCU_TAG_EXEC) return CUDA_ERROR_INVALID_HANDLE;
    e->tag = 0;
    free_nodes(e->nodes, e->n);
    free(e);
    return CUDA_SUCCESS;
}

unsigned long fcu_graph_replays(const char *variant)
{
    if (!strcmp(variant, "cuGraphLaunch")) return atomic_load(&g_replays[0]);
    if (!strcmp(variant, "cuGraphLaunch_ptsz")) return atomic_load(&g_replays[1]);
    return 0;
}
