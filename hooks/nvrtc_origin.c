/* The driver hooks' hook point (hooks/cuda_image.h, aoe_nvrtc_image_origin):
 * which NVRTC program an image loaded as a module came from, answered from
 * the NVRTC program tracker (hooks/nvrtc_programs.h) by its own hash over the
 * image's bytes. A text image (PTX, the test doubles' cubins) is hashed with
 * its final NUL, as nvrtcGetPTXSize counts it; the driver measures it
 * without. Called at module load only. */
#include "hooks/cuda_image.h"
#include "hooks/nvrtc_programs.h"

#include <stdlib.h>
#include <string.h>

const char *aoe_nvrtc_image_origin(const void *image, size_t len, uint64_t hash)
{
    (void)hash; /* the driver's FNV-1a; the tracker keys by its own */
    const void *start = NULL;
    size_t measured = 0;
    if (!image || !len) return NULL;
    if (aoe_cu_image_measure(image, &start, &measured) == AOE_CU_IMAGE_TEXT) len = measured + 1;
    const aoe_nvrtc_program *p =
        aoe_nvrtc_program_for_image(aoe_nvrtc_image_hash(image, len), len, NULL);
    if (!p) return NULL;
    /* The description outlives the program (a module record keeps it): one
     * copy per module loaded from NVRTC output, bounded by the module table. */
    char *name = strdup(p->name ? p->name : "?");
    aoe_nvrtc_program_release(p);
    return name;
}
