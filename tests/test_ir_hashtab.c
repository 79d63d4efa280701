/* tests/test_ir_hashtab.c: the open-addressing table of ir/hashtab.h: find and insert through
 * probe/set, keys known absent through add, colliding hashes told apart by the equality
 * callback, integer keys without one, growth, clear and free; the byte hash. */
#include "check.h"

#include "ir/hashtab.h"

/* Keys are strings in an array (the owner); the table maps them to their index. */
static bool str_eq(const void *keys, const void *want, int32_t i) {
  return !strcmp(((const char *const *)keys)[i], want);
}

/* Every key hashes to the same few values, so lookups must rely on the callback. */
static uint64_t bad_hash(const char *s) { return (uint64_t)(unsigned char)s[0] % 3; }

static void test_colliding_strings(void) {
  static const char *const keys[] = {"apple", "avocado", "banana", "blueberry", "cherry", "citron",
                                     "date", "elder", "fig", "grape"};
  enum { N = sizeof keys / sizeof keys[0] };
  rg_hashtab t = {0};
  CHECK(rg_hashtab_find(&t, bad_hash("apple"), str_eq, keys, "apple") == -1); /* empty table */
  for (int i = 0; i < N; i++) {
    size_t pos = rg_hashtab_probe(&t, bad_hash(keys[i]), str_eq, keys, keys[i]);
    CHECK(rg_hashtab_at(&t, pos) == -1);
    CHECK(rg_hashtab_set(&t, pos, bad_hash(keys[i]), i) == RG_OK);
  }
  CHECK(t.n == N);
  for (int i = 0; i < N; i++) CHECK(rg_hashtab_find(&t, bad_hash(keys[i]), str_eq, keys, keys[i]) == i);
  CHECK(rg_hashtab_find(&t, bad_hash("kiwi"), str_eq, keys, "kiwi") == -1);
  rg_hashtab_clear(&t);
  CHECK(t.n == 0);
  CHECK(rg_hashtab_find(&t, bad_hash("apple"), str_eq, keys, "apple") == -1);
  rg_hashtab_free(&t);
  CHECK(t.cap == 0 && t.slot == NULL);
}

/* Integer keys: value i stands for key 7 i. */
static bool int_eq(const void *owner, const void *key, int32_t i) {
  (void)owner;
  return (uint64_t)i * 7 == *(const uint64_t *)key;
}

static int32_t find_int(const rg_hashtab *t, uint64_t key) {
  return rg_hashtab_find(t, rg_mix64(key), int_eq, NULL, &key);
}

/* Enough integer keys to grow the table many times. */
static void test_integer_keys(void) {
  enum { N = 100000 };
  rg_hashtab t = {0};
  for (int32_t i = 0; i < N; i++) CHECK(rg_hashtab_add(&t, rg_mix64((uint64_t)i * 7), i) == RG_OK);
  CHECK(t.n == N && 2 * t.n <= t.cap);
  int bad = 0;
  for (int32_t i = 0; i < N; i++) {
    bad += find_int(&t, (uint64_t)i * 7) != i;
    bad += find_int(&t, (uint64_t)i * 7 + 1) != -1;
  }
  CHECK_MSG(bad == 0, "%d wrong lookups", bad);
  /* Filling to exactly half full and one more: set grows and finds its position again. */
  while (2 * (t.n + 1) <= t.cap) {
    uint64_t key = 7 * t.n;
    CHECK(rg_hashtab_add(&t, rg_mix64(key), (int32_t)t.n) == RG_OK);
  }
  uint64_t key = 7 * t.n;
  size_t pos = rg_hashtab_probe(&t, rg_mix64(key), int_eq, NULL, &key);
  CHECK(rg_hashtab_at(&t, pos) == -1);
  CHECK(rg_hashtab_set(&t, pos, rg_mix64(key), (int32_t)t.n) == RG_OK);
  CHECK(find_int(&t, key) == (int32_t)t.n - 1);
  rg_hashtab_free(&t);
}

/* rg_hash_bytes: equal bytes hash equal, and one changed byte (in the word-wise part or the
 * tail) changes the hash. */
static void test_hash_bytes(void) {
  unsigned char a[21], b[21];
  for (int i = 0; i < 21; i++) a[i] = b[i] = (unsigned char)(i * 37);
  CHECK(rg_hash_bytes(a, sizeof a) == rg_hash_bytes(b, sizeof b));
  b[3] ^= 1;
  CHECK(rg_hash_bytes(a, sizeof a) != rg_hash_bytes(b, sizeof b));
  b[3] ^= 1, b[20] ^= 1;
  CHECK(rg_hash_bytes(a, sizeof a) != rg_hash_bytes(b, sizeof b));
  CHECK(rg_hash_bytes(a, 0) != rg_hash_bytes(a, 1));
}

int main(void) {
  test_hash_bytes();
  test_colliding_strings();
  test_integer_keys();
  return check_done("test_ir_hashtab");
}
