/* tests/fuzz/fuzz_inputs.c: --inputs files (enumerate/inputs.h). */
#include "enumerate/enumerate.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rg_enum_inputset s;
  rg_err err;
  if (rg_enum_inputs_parse((const char *)data, size, &s, &err) == RG_OK)
    for (int i = 0; i < s.n; i++)
      if (rg_shape_numel(&s.in[i].shape) > RG_MAX_NUMEL) FUZZ_FAIL("input %d holds too many elements", i);
  return 0;
}
