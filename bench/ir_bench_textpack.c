/* bench/ir_bench_textpack.c: what ir/textpack.h makes of a file's lines (bench/README.md, "The
 * removed rules' texts packed"): each line but comments packed in turn by one pack trained on
 * the first TRAIN (20,000 by default, as synth/hollow.h and prune.h train), and the mean size of
 * a line after training, as it is and as its block holds it.
 *
 *   ir_bench_textpack FILE [TRAIN]
 */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <stdio.h>
#include <stdlib.h>

#include "ir/ir.h"

/* A block's bytes in all: its kind, its LEB128 length, then the payload (textpack.h). */
static size_t block_size(const char *b) {
  size_t h = 1, v = 0;
  int shift = 0;
  do
    v |= (size_t)(b[h] & 0x7f) << shift, shift += 7;
  while (b[h++] & 0x80);
  return h + v;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) return fprintf(stderr, "usage: ir_bench_textpack FILE [TRAIN]\n"), 2;
  FILE *f = fopen(argv[1], "r");
  if (!f) return perror(argv[1]), 1;
  int train = argc > 2 ? atoi(argv[2]) : 20000, n = 0, zipped = 0;
  rg_textpack *p = rg_textpack_new(train);
  if (!p) return fprintf(stderr, "out of memory\n"), 1;
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  double raw = 0, held = 0;
  while ((len = getline(&line, &cap, f)) > 0) {
    if (line[0] == '#') continue;
    char *b = rg_textpack_pack(p, line, (size_t)len);
    if (!b) return fprintf(stderr, "out of memory\n"), 1;
    if (n++ >= train)
      raw += (double)len, held += (double)block_size(b), zipped += rg_textpack_compressed(b);
    free(b);
  }
  free(line), fclose(f), rg_textpack_free(p);
  if (n <= train) return fprintf(stderr, "%d lines: none after the %d trained on\n", n, train), 1;
  printf("%d lines, %d after training, %d of them compressed: %.1f bytes a line, %.1f packed "
         "(%.2fx)\n",
         n, n - train, zipped, raw / (n - train), held / (n - train), raw / held);
  return 0;
}
