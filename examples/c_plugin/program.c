/* The backend proper: a parser for a small StableHLO subset, written by hand
 * in C against the MLIR text the host hands to BERTH_Client_Compile, and an
 * interpreter for what it parses.
 *
 * The subset (README.md, "What it compiles"):
 *
 *   [module [@name] [attributes {mhlo.num_replicas = R, ...}] {]
 *   func.func [public|private] @main(%a: tensor<4xf32> [{attrs}], ...)
 *       [-> type | -> (type [{attrs}], ...)] [attributes {...}] {
 *     %x = stablehlo.add %a, %b : tensor<4xf32>
 *     %y = stablehlo.negate %x : (tensor<4xf32>) -> tensor<4xf32>
 *     %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
 *     %g = "stablehlo.multiply"(%y, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
 *     return %x, %g : tensor<4xf32>, tensor<4xf32>
 *   }
 *   [}]
 *
 * with the ops add, subtract, multiply, divide, maximum, minimum (binary),
 * negate, abs (unary) and constant (dense<...>: a splat, nested lists, or a
 * "0x..." hex string), in pretty or generic form; tensors of static shape
 * and element type f32; `// comments` and `loc(...)` suffixes.
 *
 * Errors follow docs/abi.md: text that does not parse, or breaks the spec
 * (an undefined value, operand types that differ, a literal of the wrong
 * shape), is INVALID_ARGUMENT naming FILE:LINE:COL; a valid construct
 * outside the subset (another op, element type, dynamic shape) is
 * UNIMPLEMENTED naming it and where it is.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "c_plugin.h"

/* ------------------------------------------------------------------ storage */

cp_storage* cp_storage_new(size_t count) {
  if (count > (SIZE_MAX - sizeof(cp_storage)) / sizeof(float)) return NULL;
  cp_storage* storage = malloc(sizeof(cp_storage) + count * sizeof(float));
  if (storage == NULL) return NULL;
  atomic_init(&storage->refs, 1);
  storage->count = count;
  return storage;
}

cp_storage* cp_storage_retain(cp_storage* storage) {
  atomic_fetch_add_explicit(&storage->refs, 1, memory_order_relaxed);
  return storage;
}

void cp_storage_release(cp_storage* storage) {
  if (storage == NULL) return;
  /* acq_rel: the last owner sees every write other owners made before
   * letting go, then frees. */
  if (atomic_fetch_sub_explicit(&storage->refs, 1, memory_order_acq_rel) == 1) free(storage);
}

/* -------------------------------------------------------------------- types */

bool cp_type_equal(const cp_type* a, const cp_type* b) {
  if (a->rank != b->rank) return false;
  for (int i = 0; i < a->rank; ++i) {
    if (a->dims[i] != b->dims[i]) return false;
  }
  return true;
}

void cp_type_format(const cp_type* type, char* out, size_t out_size) {
  size_t used = 0;
  int n = snprintf(out, out_size, "tensor<");
  used = n > 0 ? (size_t)n : 0;
  for (int i = 0; i < type->rank && used < out_size; ++i) {
    n = snprintf(out + used, out_size - used, "%lldx", (long long)type->dims[i]);
    used += n > 0 ? (size_t)n : 0;
  }
  if (used < out_size) snprintf(out + used, out_size - used, "f32>");
}

/* ---------------------------------------------------------------- the IR */

typedef enum cp_opcode {
  OP_ARGUMENT,
  OP_CONSTANT,
  OP_ADD,
  OP_SUBTRACT,
  OP_MULTIPLY,
  OP_DIVIDE,
  OP_MAXIMUM,
  OP_MINIMUM,
  OP_NEGATE,
  OP_ABS,
} cp_opcode;

#define CP_OP_ENTRY(name, opcode, operands) {name, opcode, operands},
static const struct {
  const char* name;
  cp_opcode op;
  int num_operands;
} kOps[] = {CP_FOR_EACH_OP(CP_OP_ENTRY)};
#define NUM_OPS (sizeof(kOps) / sizeof(kOps[0]))

/* One SSA value: an argument or the result of one op. */
typedef struct cp_value {
  char* name; /* without the '%' */
  cp_type type;
  cp_opcode op;
  size_t operands[2];
  cp_storage* constant; /* OP_CONSTANT */
} cp_value;

typedef struct cp_function {
  char* name;
  bool is_public;
  bool has_body;
  size_t num_args; /* values[0, num_args) are the arguments */
  cp_value* values;
  size_t num_values, values_capacity;
  cp_type* result_types;
  size_t num_results, results_capacity;
  size_t* returns; /* value index of each result */
} cp_function;

struct cp_program {
  cp_function* functions;
  size_t num_functions, functions_capacity;
  int64_t num_replicas, num_partitions; /* 0: not given */
};

static void free_function(cp_function* f) {
  for (size_t i = 0; i < f->num_values; ++i) {
    free(f->values[i].name);
    cp_storage_release(f->values[i].constant);
  }
  free(f->values);
  free(f->result_types);
  free(f->returns);
  free(f->name);
}

void cp_program_free(cp_program* program) {
  if (program == NULL) return;
  for (size_t i = 0; i < program->num_functions; ++i) free_function(&program->functions[i]);
  free(program->functions);
  free(program);
}

int64_t cp_program_num_replicas(const cp_program* program) { return program->num_replicas; }
int64_t cp_program_num_partitions(const cp_program* program) { return program->num_partitions; }

const char* cp_function_name(const cp_program* program, int function) {
  return program->functions[function].name;
}
size_t cp_function_num_args(const cp_program* program, int function) {
  return program->functions[function].num_args;
}
const cp_type* cp_function_arg_type(const cp_program* program, int function, size_t i) {
  return &program->functions[function].values[i].type;
}
size_t cp_function_num_results(const cp_program* program, int function) {
  return program->functions[function].num_results;
}
const cp_type* cp_function_result_type(const cp_program* program, int function, size_t i) {
  return &program->functions[function].result_types[i];
}

/* Grows `*array` (of `*capacity` elements of `size` bytes) to hold one more
 * than `count`. */
static bool grow(void** array, size_t* capacity, size_t count, size_t size) {
  if (count < *capacity) return true;
  size_t wanted = *capacity == 0 ? 8 : *capacity * 2;
  if (wanted > SIZE_MAX / size) return false;
  void* bigger = realloc(*array, wanted * size);
  if (bigger == NULL) return false;
  *array = bigger;
  *capacity = wanted;
  return true;
}

static char* copy_span(const char* text, size_t size) {
  char* out = malloc(size + 1);
  if (out == NULL) return NULL;
  memcpy(out, text, size);
  out[size] = '\0';
  return out;
}

/* ------------------------------------------------------------------ parser */

typedef struct mark {
  size_t pos;
  int line;
  size_t line_start;
} mark;

typedef struct parser {
  const char* text;
  size_t size;
  mark at;
  const char* source;
  BERTH_Error* error; /* the first error */
  cp_program* program;
  char decimal_point; /* the C library's, for strtof */
} parser;

typedef struct span {
  const char* text;
  size_t size;
} span;

static int clamp_int(size_t n) { return n > INT_MAX ? INT_MAX : (int)n; }

static int column(mark m) { return clamp_int(m.pos - m.line_start + 1); }

/* Records an error at `m` (the first one wins) and returns false, so that
 * parse functions can `return invalid(...)`: INVALID_ARGUMENT, the text is
 * not a valid program; UNIMPLEMENTED (`unsupported`), valid but outside what
 * this backend runs. An UNIMPLEMENTED message names the construct first and
 * nothing else the backend does run (the conformance suite reads it for the
 * op names). */
static bool report(parser* p, mark m, BERTH_Error_Code code, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static bool report(parser* p, mark m, BERTH_Error_Code code, const char* format, ...) {
  if (p->error != NULL) return false;
  char what[512];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof what, format, args);
  va_end(args);
  if (code == BERTH_Error_Code_UNIMPLEMENTED) {
    p->error =
        cp_error(code, CP_NAME " does not run %s (%s:%d:%d)", what, p->source, m.line, column(m));
  } else {
    p->error =
        cp_error(code, CP_NAME ": cannot compile %s:%d:%d: %s", p->source, m.line, column(m), what);
  }
  return false;
}
#define invalid(p, m, ...) report((p), (m), BERTH_Error_Code_INVALID_ARGUMENT, __VA_ARGS__)
#define unsupported(p, m, ...) report((p), (m), BERTH_Error_Code_UNIMPLEMENTED, __VA_ARGS__)

static bool out_of_memory(parser* p) {
  if (p->error == NULL) p->error = cp_out_of_memory();
  return false;
}

static int peek_at(const parser* p, size_t offset) {
  size_t pos = p->at.pos + offset;
  return pos < p->size ? (unsigned char)p->text[pos] : -1;
}
static int peek(const parser* p) { return peek_at(p, 0); }

static void advance(parser* p) {
  if (p->at.pos >= p->size) return;
  if (p->text[p->at.pos] == '\n') {
    p->at.line++;
    p->at.line_start = p->at.pos + 1;
  }
  p->at.pos++;
}

/* Character classes without <ctype.h>, whose answers depend on the locale. */
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_letter(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_hex(int c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static bool is_id_char(int c) { return is_letter(c) || is_digit(c) || c == '_' || c == '$' || c == '.'; }

static void skip_space(parser* p) {
  for (;;) {
    int c = peek(p);
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      advance(p);
    } else if (c == '/' && peek_at(p, 1) == '/') {
      while (peek(p) != -1 && peek(p) != '\n') advance(p);
    } else {
      return;
    }
  }
}

/* Consumes `token` after blanks when it comes next; a token ending in an
 * identifier character must not run on into one ("return" is not
 * "returned"). */
static bool accept(parser* p, const char* token) {
  skip_space(p);
  size_t n = strlen(token);
  if (p->size - p->at.pos < n || memcmp(p->text + p->at.pos, token, n) != 0) return false;
  if (is_id_char((unsigned char)token[n - 1]) && is_id_char(peek_at(p, n))) return false;
  for (size_t i = 0; i < n; ++i) advance(p);
  return true;
}

static bool expect(parser* p, const char* token, const char* context) {
  if (accept(p, token)) return true;
  return invalid(p, p->at, "expected '%s' %s", token, context);
}

/* A bare identifier (letters, digits, '_', '$', '.'), e.g. an op name. */
static span scan_identifier(parser* p) {
  skip_space(p);
  span s = {p->text + p->at.pos, 0};
  if (!is_letter(peek(p)) && peek(p) != '_') return s;
  while (is_id_char(peek(p))) {
    advance(p);
    s.size++;
  }
  return s;
}

/* A "quoted string" (escapes kept as written); false when none comes next. */
static bool scan_string(parser* p, span* out) {
  skip_space(p);
  if (peek(p) != '"') return false;
  mark start = p->at;
  advance(p);
  out->text = p->text + p->at.pos;
  out->size = 0;
  for (;;) {
    int c = peek(p);
    if (c == -1 || c == '\n') return invalid(p, start, "unterminated string");
    if (c == '"') break;
    if (c == '\\') {
      advance(p);
      out->size++;
      if (peek(p) == -1) return invalid(p, start, "unterminated string");
    }
    advance(p);
    out->size++;
  }
  advance(p);
  return true;
}

/* An attribute's name, quoted or bare; false (an error recorded) when none. */
static bool scan_attribute_name(parser* p, span* key) {
  skip_space(p);
  mark key_at = p->at;
  if (!scan_string(p, key)) *key = scan_identifier(p);
  if (key->size == 0) return invalid(p, key_at, "expected an attribute name");
  return true;
}

static bool span_is(span s, const char* text) {
  return s.size == strlen(text) && memcmp(s.text, text, s.size) == 0;
}

/* Skips a balanced group opened by the character at the current position
 * ('{', '(' or '['), strings included. */
static bool skip_group(parser* p) {
  mark start = p->at;
  char stack[64];
  int depth = 0;
  do {
    int c = peek(p);
    if (c == -1) return invalid(p, start, "unbalanced '%c'", stack[0]);
    if (c == '"') {
      span ignored;
      if (!scan_string(p, &ignored)) return false;
      continue;
    }
    if (c == '{' || c == '(' || c == '[') {
      if (depth == (int)sizeof stack) return unsupported(p, start, "attributes nested this deep");
      stack[depth++] = (char)c;
    } else if (c == '}' || c == ')' || c == ']') {
      char open = c == '}' ? '{' : c == ')' ? '(' : '[';
      if (depth == 0 || stack[depth - 1] != open) return invalid(p, p->at, "unbalanced '%c'", c);
      depth--;
    }
    advance(p);
  } while (depth > 0);
  return true;
}

/* Text up to the first of `stops` outside any group or string, ignored. */
static bool skip_until(parser* p, const char* stops) {
  while (peek(p) != -1 && strchr(stops, peek(p)) == NULL) {
    if (peek(p) == '{' || peek(p) == '(' || peek(p) == '[') {
      if (!skip_group(p)) return false;
    } else if (peek(p) == '"') {
      span ignored;
      if (!scan_string(p, &ignored)) return false;
    } else {
      advance(p);
    }
  }
  return true;
}

/* An optional `{...}` attribute dictionary, ignored. */
static bool skip_attributes(parser* p) {
  skip_space(p);
  return peek(p) == '{' ? skip_group(p) : true;
}

/* An optional `loc(...)` location suffix, ignored. */
static bool skip_location(parser* p) {
  if (!accept(p, "loc")) return true;
  skip_space(p);
  if (peek(p) != '(') return invalid(p, p->at, "expected '(' after 'loc'");
  return skip_group(p);
}

static bool parse_int64(parser* p, int64_t* out) {
  skip_space(p);
  mark start = p->at;
  bool negative = accept(p, "-");
  if (!is_digit(peek(p))) return invalid(p, start, "expected an integer");
  uint64_t value = 0;
  while (is_digit(peek(p))) {
    uint64_t digit = (uint64_t)(peek(p) - '0');
    if (value > (UINT64_MAX - digit) / 10) return invalid(p, start, "integer out of range");
    value = value * 10 + digit;
    advance(p);
  }
  if (value > (negative ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX)) {
    return invalid(p, start, "integer out of range");
  }
  *out = negative ? (int64_t)(0 - value) : (int64_t)value;
  return true;
}

/* tensor<D0xD1x...xf32>, static shape. */
static bool parse_type(parser* p, cp_type* type) {
  skip_space(p);
  mark start = p->at;
  if (!accept(p, "tensor")) {
    /* Name what is there: a type this backend does not take, or junk. */
    span word = {p->text + p->at.pos, 0};
    while (peek_at(p, word.size) != -1 && (is_id_char(peek_at(p, word.size)) ||
                                           peek_at(p, word.size) == '!')) {
      word.size++;
    }
    if (word.size == 0) return invalid(p, start, "expected a type");
    if (word.text[0] == '!' || span_is(word, "tuple") || span_is(word, "memref") ||
        span_is(word, "f32") || span_is(word, "index") || span_is(word, "vector")) {
      return unsupported(p, start, "values of type %.*s (only tensors of f32)",
                         clamp_int(word.size), word.text);
    }
    return invalid(p, start, "expected a type, not '%.*s'", clamp_int(word.size), word.text);
  }
  if (!expect(p, "<", "after 'tensor'")) return false;
  type->rank = 0;
  type->count = 1;
  for (;;) {
    skip_space(p);
    int c = peek(p);
    if (c == '?') return unsupported(p, start, "dynamic dimensions (tensor<?x...>)");
    if (c == '*') return unsupported(p, start, "unranked tensors (tensor<*x...>)");
    if (!is_digit(c)) break;
    int64_t dim;
    if (!parse_int64(p, &dim)) return false;
    if (peek(p) != 'x') return invalid(p, p->at, "expected 'x' after a dimension");
    advance(p);
    if (type->rank == CP_MAX_RANK) {
      return unsupported(p, start, "tensors of rank above %d", CP_MAX_RANK);
    }
    if (dim != 0 && type->count > (SIZE_MAX / 4) / (uint64_t)dim) {
      return invalid(p, start, "the tensor has too many elements");
    }
    type->dims[type->rank++] = dim;
    type->count *= (size_t)dim;
  }
  mark element_at = p->at;
  span element = {p->text + p->at.pos, 0};
  while (is_letter(peek_at(p, element.size)) || is_digit(peek_at(p, element.size)) ||
         peek_at(p, element.size) == '_') {
    element.size++;
  }
  if (element.size > 0 && peek_at(p, element.size) == '<') { /* complex<f32> */
    while (peek_at(p, element.size) != -1 && peek_at(p, element.size) != '>') element.size++;
    element.size++;
  }
  if (element.size == 0) return invalid(p, element_at, "expected an element type");
  if (!span_is(element, "f32")) {
    return unsupported(p, element_at, "element type %.*s (f32 only)", clamp_int(element.size),
                       element.text);
  }
  for (size_t i = 0; i < element.size; ++i) advance(p);
  skip_space(p);
  if (peek(p) == ',') return unsupported(p, p->at, "tensor encodings");
  return expect(p, ">", "to close the tensor type");
}

/* "%name": its characters after '%'. */
static bool parse_value_name(parser* p, span* name) {
  skip_space(p);
  if (peek(p) != '%') return invalid(p, p->at, "expected a value (%%name)");
  advance(p);
  name->text = p->text + p->at.pos;
  name->size = 0;
  while (is_id_char(peek(p)) || peek(p) == '-') {
    advance(p);
    name->size++;
  }
  if (name->size == 0) return invalid(p, p->at, "expected a value name after '%%'");
  if (peek(p) == '#') return invalid(p, p->at, "%%name#N: these ops have one result");
  return true;
}

static cp_function* current(parser* p) {
  return &p->program->functions[p->program->num_functions - 1];
}

/* The index of value %name in the current function. */
static bool lookup_value(parser* p, mark at, span name, size_t* index) {
  cp_function* f = current(p);
  for (size_t i = f->num_values; i-- > 0;) {
    if (strlen(f->values[i].name) == name.size &&
        memcmp(f->values[i].name, name.text, name.size) == 0) {
      *index = i;
      return true;
    }
  }
  return invalid(p, at, "use of undefined value %%%.*s", clamp_int(name.size), name.text);
}

static bool parse_operand(parser* p, size_t* index) {
  skip_space(p);
  mark at = p->at;
  span name;
  return parse_value_name(p, &name) && lookup_value(p, at, name, index);
}

/* Defines %name in the current function; returns its slot. */
static cp_value* define_value(parser* p, mark at, span name) {
  cp_function* f = current(p);
  for (size_t i = 0; i < f->num_values; ++i) {
    if (strlen(f->values[i].name) == name.size &&
        memcmp(f->values[i].name, name.text, name.size) == 0) {
      invalid(p, at, "value %%%.*s is defined twice", clamp_int(name.size), name.text);
      return NULL;
    }
  }
  if (!grow((void**)&f->values, &f->values_capacity, f->num_values, sizeof(cp_value))) {
    out_of_memory(p);
    return NULL;
  }
  cp_value* value = &f->values[f->num_values];
  memset(value, 0, sizeof *value);
  value->name = copy_span(name.text, name.size);
  if (value->name == NULL) {
    out_of_memory(p);
    return NULL;
  }
  f->num_values++;
  return value;
}

/* Where the decimal point of the C library's current locale is ("C": '.');
 * strtof reads numbers in it. snprintf is thread-safe, localeconv is not. */
static char locale_decimal_point(void) {
  char text[8];
  snprintf(text, sizeof text, "%.1f", 0.5);
  return text[1];
}

/* An f32 literal: a decimal number (integer or float), or 0x... (the bits). */
static bool parse_float(parser* p, float* out) {
  skip_space(p);
  mark start = p->at;
  char text[80];
  size_t n = 0;
  bool negative = false;
  if (peek(p) == '-' || peek(p) == '+') {
    negative = peek(p) == '-';
    text[n++] = (char)peek(p);
    advance(p);
  }
  if (peek(p) == '0' && (peek_at(p, 1) == 'x' || peek_at(p, 1) == 'X')) {
    advance(p);
    advance(p);
    uint64_t bits = 0;
    size_t digits = 0;
    while (is_hex(peek(p))) {
      int c = peek(p);
      bits = bits * 16 + (uint64_t)(is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
      if (++digits > 8) return invalid(p, start, "hexadecimal f32 literal wider than 32 bits");
      advance(p);
    }
    if (digits == 0) return invalid(p, start, "expected hexadecimal digits");
    if (negative) return invalid(p, start, "a hexadecimal f32 literal takes no sign");
    uint32_t word = (uint32_t)bits;
    memcpy(out, &word, sizeof word);
    return true;
  }
  size_t digits = 0;
  while (is_digit(peek(p)) && n < sizeof text - 1) {
    text[n++] = (char)peek(p);
    advance(p);
    digits++;
  }
  if (peek(p) == '.' && n < sizeof text - 1) {
    text[n++] = p->decimal_point;
    advance(p);
    while (is_digit(peek(p)) && n < sizeof text - 1) {
      text[n++] = (char)peek(p);
      advance(p);
      digits++;
    }
  }
  if (digits == 0) return invalid(p, start, "expected a number");
  if ((peek(p) == 'e' || peek(p) == 'E') && n < sizeof text - 3) {
    text[n++] = 'e';
    advance(p);
    if (peek(p) == '-' || peek(p) == '+') {
      text[n++] = (char)peek(p);
      advance(p);
    }
    if (!is_digit(peek(p))) return invalid(p, start, "expected an exponent");
    while (is_digit(peek(p)) && n < sizeof text - 1) {
      text[n++] = (char)peek(p);
      advance(p);
    }
  }
  if (is_digit(peek(p)) || peek(p) == '.') return invalid(p, start, "number too long");
  if (is_id_char(peek(p))) return invalid(p, p->at, "unexpected '%c' in a number", peek(p));
  text[n] = '\0';
  errno = 0;
  char* end = NULL;
  float value = strtof(text, &end);
  if (end != text + n) return invalid(p, start, "malformed number");
  if (errno == ERANGE && isinf(value)) return invalid(p, start, "%s is out of range for f32", text);
  *out = value;
  return true;
}

/* The elements of a nested list at `level` of `type`, into out[*n...]. */
static bool parse_elements(parser* p, const cp_type* type, int level, float* out, size_t* n) {
  skip_space(p);
  mark at = p->at;
  if (!accept(p, "[")) {
    if (level != type->rank) {
      return invalid(p, at, "the literal has a number where dimension %d of the type has a list",
                     level);
    }
    return parse_float(p, &out[(*n)++]);
  }
  if (level >= type->rank) {
    return invalid(p, at, "the literal is nested deeper than the type's rank %d", type->rank);
  }
  int64_t count = 0;
  if (accept(p, "]")) return count == type->dims[level] ? true
      : invalid(p, at, "the literal has 0 elements in dimension %d; the type has %lld", level,
                (long long)type->dims[level]);
  for (;;) {
    if (count == type->dims[level]) {
      return invalid(p, p->at, "the literal has more than %lld elements in dimension %d",
                     (long long)type->dims[level], level);
    }
    if (!parse_elements(p, type, level + 1, out, n)) return false;
    count++;
    if (accept(p, ",")) continue;
    if (!expect(p, "]", "to close a list of the literal")) return false;
    break;
  }
  if (count != type->dims[level]) {
    return invalid(p, at, "the literal has %lld elements in dimension %d; the type has %lld",
                   (long long)count, level, (long long)type->dims[level]);
  }
  return true;
}

/* The inside of dense<...> (starting right after '<', ending after '>') as
 * a constant of `type`. */
static bool parse_dense(parser* p, const cp_type* type, cp_storage** out) {
  cp_storage* storage = cp_storage_new(type->count);
  if (storage == NULL) return out_of_memory(p);
  skip_space(p);
  mark at = p->at;
  bool ok = true;
  span hex;
  if (peek(p) == '"') {
    /* "0x" then the elements' bytes, little-endian; 4 bytes: a splat. */
    ok = scan_string(p, &hex);
    if (ok && (hex.size < 2 || hex.text[0] != '0' || (hex.text[1] | 0x20) != 'x' ||
               hex.size % 2 != 0)) {
      ok = invalid(p, at, "a hexadecimal literal is \"0x\" and an even number of digits");
    }
    size_t bytes = ok ? (hex.size - 2) / 2 : 0;
    if (ok && bytes != 4 && bytes != 4 * type->count) {
      ok = invalid(p, at, "the hexadecimal literal has %zu bytes; the type needs %zu", bytes,
                   4 * type->count);
    }
    for (size_t e = 0; ok && e < type->count; ++e) {
      uint32_t word = 0;
      size_t base = bytes == 4 ? 0 : 4 * e;
      for (size_t b = 0; ok && b < 4; ++b) {
        unsigned value = 0;
        for (size_t d = 0; d < 2; ++d) {
          int c = (unsigned char)hex.text[2 + 2 * (base + b) + d];
          if (!is_hex(c)) {
            ok = invalid(p, at, "'%c' is not a hexadecimal digit", c);
            break;
          }
          value = value * 16 + (unsigned)(is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10);
        }
        word |= (uint32_t)value << (8 * b);
      }
      memcpy(&storage->data[e], &word, sizeof word);
    }
  } else if (peek(p) == '[') {
    size_t n = 0;
    ok = parse_elements(p, type, 0, storage->data, &n);
  } else {
    float value = 0;
    ok = parse_float(p, &value); /* a splat */
    for (size_t e = 0; ok && e < type->count; ++e) storage->data[e] = value;
  }
  if (ok) ok = expect(p, ">", "to close dense<...>");
  if (!ok) {
    cp_storage_release(storage);
    return false;
  }
  *out = storage;
  return true;
}

/* `dense<...> : type`; the literal is read once the type is known. */
static bool parse_constant_attribute(parser* p, cp_value* value) {
  skip_space(p);
  mark at = p->at;
  if (!accept(p, "dense")) {
    span word = scan_identifier(p);
    if (word.size > 0) {
      return unsupported(p, at, "constants written as %.*s (dense<...> only)",
                         clamp_int(word.size), word.text);
    }
    return invalid(p, at, "expected dense<...>");
  }
  if (!expect(p, "<", "after 'dense'")) return false;
  mark literal = p->at;
  /* Find the closing '>' to read the type first. */
  while (peek(p) != -1 && peek(p) != '>') {
    if (peek(p) == '"') {
      span ignored;
      if (!scan_string(p, &ignored)) return false;
      continue;
    }
    advance(p);
  }
  if (!expect(p, ">", "to close dense<...>")) return false;
  if (!expect(p, ":", "before the constant's type") || !parse_type(p, &value->type)) return false;
  mark after = p->at;
  p->at = literal;
  if (!parse_dense(p, &value->type, &value->constant)) return false;
  p->at = after;
  return true;
}

/* The types of an op after ':': one type (of every operand and the result)
 * or `(t0, t1) -> r`. Checks them against the operands and makes the result
 * type the common type, as the elementwise ops require. */
static bool parse_op_types(parser* p, mark op_at, const char* op, cp_value* value, int num_operands,
                           bool functional_only) {
  cp_function* f = current(p);
  cp_type given[2];
  cp_type result;
  skip_space(p);
  if (peek(p) == '(' || functional_only) {
    if (!expect(p, "(", "to open the operand types")) return false;
    int count = 0;
    if (!accept(p, ")")) {
      for (;;) {
        if (count == num_operands) {
          return invalid(p, op_at, "%s takes %d operand(s)", op, num_operands);
        }
        if (!parse_type(p, &given[count++])) return false;
        if (accept(p, ",")) continue;
        if (!expect(p, ")", "to close the operand types")) return false;
        break;
      }
    }
    if (count != num_operands) {
      return invalid(p, op_at, "%s takes %d operand(s), the types list %d", op, num_operands,
                     count);
    }
    if (!expect(p, "->", "before the result type")) return false;
    bool parenthesized = accept(p, "(");
    if (!parse_type(p, &result)) return false;
    if (parenthesized && !expect(p, ")", "to close the result types")) return false;
  } else {
    if (!parse_type(p, &result)) return false;
    for (int i = 0; i < num_operands; ++i) given[i] = result;
  }
  for (int i = 0; i < num_operands; ++i) {
    const cp_type* actual = &f->values[value->operands[i]].type;
    if (!cp_type_equal(&given[i], actual)) {
      char want[CP_TYPE_TEXT], have[CP_TYPE_TEXT];
      cp_type_format(&given[i], want, sizeof want);
      cp_type_format(actual, have, sizeof have);
      return invalid(p, op_at, "%s: operand %d is %s, the op says %s", op, i, have, want);
    }
    if (!cp_type_equal(&given[i], &result)) {
      char want[CP_TYPE_TEXT], have[CP_TYPE_TEXT];
      cp_type_format(&result, want, sizeof want);
      cp_type_format(&given[i], have, sizeof have);
      return invalid(p, op_at, "%s: operand %d is %s but the result is %s (elementwise ops "
                     "take and give one shape)", op, i, have, want);
    }
  }
  value->type = result;
  return true;
}

/* `%name = op ...` after the '='. */
static bool parse_op(parser* p, mark name_at, span name) {
  skip_space(p);
  mark op_at = p->at;
  bool generic = peek(p) == '"';
  span op_name;
  if (generic) {
    if (!scan_string(p, &op_name)) return false;
  } else {
    op_name = scan_identifier(p);
    if (op_name.size == 0 || memchr(op_name.text, '.', op_name.size) == NULL) {
      return invalid(p, op_at, "expected an operation name after '='");
    }
  }
  size_t k = 0;
  while (k < NUM_OPS && !span_is(op_name, kOps[k].name)) k++;
  if (k == NUM_OPS) return unsupported(p, op_at, "%.*s", clamp_int(op_name.size), op_name.text);
  const char* op = kOps[k].name;
  const int num_operands = kOps[k].num_operands;

  /* Operands first, so %x = op %x is an undefined use. */
  size_t operands[2] = {0, 0};
  if (generic && !expect(p, "(", "to open the operands")) return false;
  int count = 0;
  skip_space(p);
  if (peek(p) == '%') {
    for (;;) {
      skip_space(p);
      mark at = p->at;
      size_t index;
      if (!parse_operand(p, &index)) return false;
      if (count == num_operands) return invalid(p, at, "%s takes %d operand(s)", op, num_operands);
      operands[count++] = index;
      if (!accept(p, ",")) break;
    }
  }
  if (generic && !expect(p, ")", "to close the operands")) return false;
  if (count != num_operands) {
    return invalid(p, op_at, "%s takes %d operand(s), not %d", op, num_operands, count);
  }

  cp_value* value = define_value(p, name_at, name);
  if (value == NULL) return false;
  value->op = kOps[k].op;
  value->operands[0] = operands[0];
  value->operands[1] = operands[1];

  if (value->op == OP_CONSTANT && !generic) {
    if (!parse_constant_attribute(p, value)) return false;
    return skip_attributes(p) && skip_location(p);
  }
  if (generic) {
    /* Properties <{...}> or attributes {...}; a constant's `value`. */
    bool properties = accept(p, "<");
    skip_space(p);
    bool have_value = false;
    if (peek(p) == '{') {
      advance(p);
      while (!accept(p, "}")) {
        span key;
        if (!scan_attribute_name(p, &key)) return false;
        if (accept(p, "=")) {
          if (value->op == OP_CONSTANT && span_is(key, "value")) {
            if (!parse_constant_attribute(p, value)) return false;
            have_value = true;
          } else {
            skip_space(p);
            if (!skip_until(p, ",}")) return false;
          }
        }
        if (!accept(p, ",") && !(skip_space(p), peek(p) == '}')) {
          return invalid(p, p->at, "expected ',' or '}' in the attributes");
        }
      }
    }
    if (properties && !expect(p, ">", "to close the properties")) return false;
    if (value->op == OP_CONSTANT) {
      if (!have_value) return invalid(p, op_at, "stablehlo.constant needs a value attribute");
      cp_type declared = value->type;
      cp_type result;
      if (!expect(p, ":", "before the op's type") || !expect(p, "(", "to open the operand types") ||
          !expect(p, ")", "(a constant has no operands)") ||
          !expect(p, "->", "before the result type")) {
        return false;
      }
      bool parenthesized = accept(p, "(");
      if (!parse_type(p, &result)) return false;
      if (parenthesized && !expect(p, ")", "to close the result types")) return false;
      if (!cp_type_equal(&declared, &result)) {
        return invalid(p, op_at, "stablehlo.constant: the value's type differs from the result's");
      }
      return skip_location(p);
    }
    if (!expect(p, ":", "before the op's type")) return false;
    return parse_op_types(p, op_at, op, value, num_operands, true) && skip_location(p);
  }
  if (!skip_attributes(p) || !expect(p, ":", "before the op's type")) return false;
  return parse_op_types(p, op_at, op, value, num_operands, false) && skip_location(p);
}

/* `return %a, %b : t0, t1` (or func.return, or the generic form). */
static bool parse_return(parser* p, mark at, bool generic) {
  cp_function* f = current(p);
  size_t operands[64];
  size_t count = 0;
  if (generic && !expect(p, "(", "to open the returned values")) return false;
  skip_space(p);
  if (peek(p) == '%') {
    for (;;) {
      if (count == sizeof operands / sizeof operands[0]) {
        return unsupported(p, at, "functions with more than 64 results");
      }
      if (!parse_operand(p, &operands[count++])) return false;
      if (!accept(p, ",")) break;
    }
  }
  if (generic && !expect(p, ")", "to close the returned values")) return false;
  if (generic) {
    if (!skip_attributes(p) || !expect(p, ":", "before the types") ||
        !expect(p, "(", "to open the types")) {
      return false;
    }
  } else if (count > 0 && !expect(p, ":", "before the returned types")) {
    return false;
  }
  for (size_t i = 0; i < count; ++i) {
    cp_type type;
    if (i > 0 && !expect(p, ",", "between the returned types")) return false;
    if (!parse_type(p, &type)) return false;
    if (!cp_type_equal(&type, &f->values[operands[i]].type)) {
      return invalid(p, at, "return: value %zu is not of the type written for it", i);
    }
  }
  if (generic && (!expect(p, ")", "to close the types") || !expect(p, "->", "in return's type") ||
                  !expect(p, "(", "in return's type") || !expect(p, ")", "in return's type"))) {
    return false;
  }
  if (!skip_location(p)) return false;
  if (count != f->num_results) {
    return invalid(p, at, "return gives %zu value(s); @%s returns %zu", count, f->name,
                   f->num_results);
  }
  for (size_t i = 0; i < count; ++i) {
    if (!cp_type_equal(&f->values[operands[i]].type, &f->result_types[i])) {
      char want[CP_TYPE_TEXT], have[CP_TYPE_TEXT];
      cp_type_format(&f->result_types[i], want, sizeof want);
      cp_type_format(&f->values[operands[i]].type, have, sizeof have);
      return invalid(p, at, "return: result %zu is %s; @%s returns %s", i, have, f->name, want);
    }
  }
  f->returns = malloc((count > 0 ? count : 1) * sizeof(size_t));
  if (f->returns == NULL) return out_of_memory(p);
  memcpy(f->returns, operands, count * sizeof(size_t));
  return true;
}

static bool parse_body(parser* p) {
  cp_function* f = current(p);
  for (;;) {
    skip_space(p);
    mark at = p->at;
    if (peek(p) == -1) return invalid(p, at, "@%s is not closed by '}'", f->name);
    if (peek(p) == '}') return invalid(p, at, "@%s does not end in return", f->name);
    if (accept(p, "return") || accept(p, "func.return")) {
      if (!parse_return(p, at, false)) return false;
      break;
    }
    if (accept(p, "\"func.return\"")) {
      if (!parse_return(p, at, true)) return false;
      break;
    }
    if (peek(p) == '%') {
      span name;
      if (!parse_value_name(p, &name)) return false;
      if (accept(p, ":")) {
        int64_t results;
        if (!parse_int64(p, &results)) return false;
        if (!expect(p, "=", "after the result names")) return false;
        skip_space(p);
        mark op_at = p->at;
        span op;
        if (!scan_string(p, &op)) op = scan_identifier(p);
        for (size_t k = 0; k < NUM_OPS; ++k) {
          if (span_is(op, kOps[k].name)) return invalid(p, op_at, "%s has one result", kOps[k].name);
        }
        return unsupported(p, op_at, "%.*s", clamp_int(op.size), op.text);
      }
      if (!expect(p, "=", "after the result name")) return false;
      if (!parse_op(p, at, name)) return false;
      continue;
    }
    /* An op without results. */
    span op;
    if (!scan_string(p, &op)) op = scan_identifier(p);
    if (op.size > 0 && memchr(op.text, '.', op.size) != NULL) {
      for (size_t k = 0; k < NUM_OPS; ++k) {
        if (span_is(op, kOps[k].name)) {
          return invalid(p, at, "%s needs a result name (%%x = ...)", kOps[k].name);
        }
      }
      return unsupported(p, at, "%.*s", clamp_int(op.size), op.text);
    }
    return invalid(p, at, "expected an operation or return");
  }
  return expect(p, "}", "after return (it ends the function)");
}

/* func.func, after the keyword. */
static bool parse_function(parser* p) {
  cp_program* program = p->program;
  if (!grow((void**)&program->functions, &program->functions_capacity, program->num_functions,
            sizeof(cp_function))) {
    return out_of_memory(p);
  }
  cp_function* f = &program->functions[program->num_functions++];
  memset(f, 0, sizeof *f);
  f->is_public = true;
  if (accept(p, "private") || accept(p, "nested")) {
    f->is_public = false;
  } else {
    accept(p, "public");
  }
  skip_space(p);
  mark name_at = p->at;
  if (!expect(p, "@", "before the function's name")) return false;
  span name;
  if (peek(p) == '"') {
    if (!scan_string(p, &name)) return false;
  } else {
    name = scan_identifier(p);
  }
  if (name.size == 0) return invalid(p, name_at, "expected the function's name after '@'");
  f->name = copy_span(name.text, name.size);
  if (f->name == NULL) return out_of_memory(p);
  for (size_t i = 0; i + 1 < program->num_functions; ++i) {
    if (strcmp(program->functions[i].name, f->name) == 0) {
      return invalid(p, name_at, "@%s is defined twice", f->name);
    }
  }

  if (!expect(p, "(", "to open the arguments")) return false;
  if (!accept(p, ")")) {
    for (;;) {
      skip_space(p);
      mark at = p->at;
      span arg;
      if (!parse_value_name(p, &arg)) return false;
      if (!expect(p, ":", "after the argument's name")) return false;
      cp_type type;
      if (!parse_type(p, &type) || !skip_attributes(p) || !skip_location(p)) return false;
      cp_value* value = define_value(p, at, arg);
      if (value == NULL) return false;
      value->op = OP_ARGUMENT;
      value->type = type;
      f->num_args++;
      if (accept(p, ",")) continue;
      if (!expect(p, ")", "to close the arguments")) return false;
      break;
    }
  }
  if (accept(p, "->")) {
    bool list = accept(p, "(");
    if (!(list && accept(p, ")"))) {
      for (;;) {
        if (!grow((void**)&f->result_types, &f->results_capacity, f->num_results,
                  sizeof(cp_type))) {
          return out_of_memory(p);
        }
        if (!parse_type(p, &f->result_types[f->num_results])) return false;
        f->num_results++;
        if (!list) break;
        if (!skip_attributes(p)) return false;
        if (accept(p, ",")) continue;
        if (!expect(p, ")", "to close the result types")) return false;
        break;
      }
    }
  }
  if (accept(p, "attributes") && !(skip_space(p), skip_attributes(p))) return false;
  skip_space(p);
  if (peek(p) != '{') {
    /* A declaration: no body, so it cannot run. */
    if (f->is_public) return invalid(p, p->at, "expected '{' to open the body of @%s", f->name);
    return skip_location(p);
  }
  advance(p);
  f->has_body = true;
  return parse_body(p) && skip_location(p);
}

/* The module's attributes: mhlo.num_replicas and mhlo.num_partitions. */
static bool parse_module_attributes(parser* p) {
  skip_space(p);
  if (peek(p) != '{') return invalid(p, p->at, "expected '{' after 'attributes'");
  advance(p);
  while (!accept(p, "}")) {
    span key;
    if (!scan_attribute_name(p, &key)) return false;
    if (accept(p, "=")) {
      int64_t* field = span_is(key, "mhlo.num_replicas")     ? &p->program->num_replicas
                       : span_is(key, "mhlo.num_partitions") ? &p->program->num_partitions
                                                             : NULL;
      if (field != NULL) {
        skip_space(p);
        mark value_at = p->at;
        if (!parse_int64(p, field)) return false;
        if (*field < 1) return invalid(p, value_at, "%.*s must be at least 1", (int)key.size, key.text);
        if (accept(p, ":")) scan_identifier(p); /* i32, i64 */
      } else {
        skip_space(p);
        if (!skip_until(p, ",}")) return false;
      }
    }
    if (!accept(p, ",") && !(skip_space(p), peek(p) == '}')) {
      return invalid(p, p->at, "expected ',' or '}' in the module's attributes");
    }
  }
  return true;
}

/* Attribute and type aliases at the top level (`#loc1 = loc("f.py":3:1)`,
 * `!t = tensor<4xf32>`), as MLIR with locations has them: skipped. A use
 * of one inside the program (other than in loc(...)) is not understood. */
static bool skip_aliases(parser* p) {
  for (;;) {
    skip_space(p);
    if (peek(p) != '#' && peek(p) != '!') return true;
    mark at = p->at;
    advance(p);
    if (scan_identifier(p).size == 0 && !is_digit(peek(p))) {
      return invalid(p, at, "expected an alias name");
    }
    while (is_id_char(peek(p))) advance(p);
    if (!expect(p, "=", "after the alias name")) return false;
    while (peek(p) == ' ' || peek(p) == '\t') advance(p);
    if (!skip_until(p, "\n")) return false;
  }
}

/* Functions until `end` ('}' of a module, or the end of the text). */
static bool parse_functions(parser* p, bool in_module) {
  for (;;) {
    skip_space(p);
    mark at = p->at;
    if (peek(p) == -1) {
      return in_module ? invalid(p, at, "the module is not closed by '}'") : true;
    }
    if (in_module && peek(p) == '}') {
      advance(p);
      return true;
    }
    if (!in_module && (peek(p) == '#' || peek(p) == '!')) {
      if (!skip_aliases(p)) return false;
      continue;
    }
    if (accept(p, "func.func")) {
      if (!parse_function(p)) return false;
      continue;
    }
    span op;
    if (!scan_string(p, &op)) op = scan_identifier(p);
    if (op.size > 0 && memchr(op.text, '.', op.size) != NULL) {
      return unsupported(p, at, "%.*s", clamp_int(op.size), op.text);
    }
    return invalid(p, at, "expected func.func");
  }
}

BERTH_Error* cp_program_parse(const char* code, size_t size, const char* source_name,
                              cp_program** out) {
  *out = NULL;
  parser p;
  memset(&p, 0, sizeof p);
  p.text = code;
  p.size = size;
  p.at.line = 1;
  p.source = source_name;
  p.decimal_point = locale_decimal_point();
  p.program = calloc(1, sizeof(cp_program));
  if (p.program == NULL) return cp_out_of_memory();
  if (memchr(code, '\0', size) != NULL) {
    invalid(&p, p.at, "the program contains a NUL byte");
  } else if (skip_aliases(&p) && accept(&p, "module")) {
    skip_space(&p);
    if (peek(&p) == '@') {
      advance(&p);
      span ignored;
      if (!scan_string(&p, &ignored)) scan_identifier(&p);
    }
    bool ok = true;
    if (accept(&p, "attributes")) ok = parse_module_attributes(&p);
    if (ok && expect(&p, "{", "to open the module") && parse_functions(&p, true)) {
      if (skip_location(&p) && skip_aliases(&p) && peek(&p) != -1) {
        invalid(&p, p.at, "text after the module");
      }
    }
  } else if (p.error == NULL) {
    parse_functions(&p, false);
  }
  if (p.error == NULL && p.program->num_functions == 0) {
    invalid(&p, p.at, "the program has no function");
  }
  if (p.error != NULL) {
    cp_program_free(p.program);
    return p.error;
  }
  *out = p.program;
  return NULL;
}

int cp_program_find_entry(const cp_program* program, const char* name, size_t name_size,
                          BERTH_Error** error) {
  int found = -1;
  if (name != NULL && name_size > 0) {
    for (size_t i = 0; i < program->num_functions; ++i) {
      const char* f = program->functions[i].name;
      if (strlen(f) == name_size && memcmp(f, name, name_size) == 0) found = (int)i;
    }
    if (found < 0) {
      *error = cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                        CP_NAME ": the program has no function @%.*s", clamp_int(name_size), name);
      return -1;
    }
  } else {
    int public_count = 0, last_public = -1;
    for (size_t i = 0; i < program->num_functions; ++i) {
      if (strcmp(program->functions[i].name, "main") == 0) found = (int)i;
      if (program->functions[i].is_public) {
        public_count++;
        last_public = (int)i;
      }
    }
    if (found < 0 && public_count == 1) found = last_public;
    if (found < 0) {
      *error = cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                        CP_NAME ": the program has no @main and %d public functions; name the "
                        "entry function", public_count);
      return -1;
    }
  }
  if (!program->functions[found].has_body) {
    *error = cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                      CP_NAME ": @%s is a declaration without a body", program->functions[found].name);
    return -1;
  }
  return found;
}

/* ------------------------------------------------------------- interpreter */

/* IEEE 754-2019 maximum and minimum, as the StableHLO spec asks: a NaN
 * operand gives NaN, and +0 is above -0. (fmaxf/fminf drop NaNs.) */
static float maximum(float a, float b) {
  if (isnan(a)) return a;
  if (isnan(b)) return b;
  if (a == b) return signbit(a) ? b : a;
  return a > b ? a : b;
}

static float minimum(float a, float b) {
  if (isnan(a)) return a;
  if (isnan(b)) return b;
  if (a == b) return signbit(a) ? a : b;
  return a < b ? a : b;
}

static void run_op(cp_opcode op, const float* a, const float* b, float* out, size_t n) {
  switch (op) {
    case OP_ADD: for (size_t i = 0; i < n; ++i) out[i] = a[i] + b[i]; break;
    case OP_SUBTRACT: for (size_t i = 0; i < n; ++i) out[i] = a[i] - b[i]; break;
    case OP_MULTIPLY: for (size_t i = 0; i < n; ++i) out[i] = a[i] * b[i]; break;
    case OP_DIVIDE: for (size_t i = 0; i < n; ++i) out[i] = a[i] / b[i]; break;
    case OP_MAXIMUM: for (size_t i = 0; i < n; ++i) out[i] = maximum(a[i], b[i]); break;
    case OP_MINIMUM: for (size_t i = 0; i < n; ++i) out[i] = minimum(a[i], b[i]); break;
    case OP_NEGATE: for (size_t i = 0; i < n; ++i) out[i] = -a[i]; break;
    case OP_ABS: for (size_t i = 0; i < n; ++i) out[i] = fabsf(a[i]); break;
    case OP_ARGUMENT:
    case OP_CONSTANT: break;
  }
}

BERTH_Error* cp_program_run(const cp_program* program, int function, cp_storage* const* args,
                            cp_storage** results) {
  const cp_function* f = &program->functions[function];
  cp_storage** values = calloc(f->num_values > 0 ? f->num_values : 1, sizeof(cp_storage*));
  if (values == NULL) return cp_out_of_memory();
  BERTH_Error* error = NULL;
  for (size_t i = 0; i < f->num_values && error == NULL; ++i) {
    const cp_value* v = &f->values[i];
    if (v->op == OP_ARGUMENT) {
      values[i] = cp_storage_retain(args[i]);
    } else if (v->op == OP_CONSTANT) {
      values[i] = cp_storage_retain(v->constant);
    } else {
      values[i] = cp_storage_new(v->type.count);
      if (values[i] == NULL) {
        error = cp_error(BERTH_Error_Code_RESOURCE_EXHAUSTED,
                         CP_NAME ": out of memory for %%%s (%zu f32 elements)", v->name,
                         v->type.count);
        break;
      }
      const float* b = v->op == OP_NEGATE || v->op == OP_ABS ? NULL
                                                              : values[v->operands[1]]->data;
      run_op(v->op, values[v->operands[0]]->data, b, values[i]->data, v->type.count);
    }
  }
  if (error == NULL) {
    for (size_t r = 0; r < f->num_results; ++r) results[r] = cp_storage_retain(values[f->returns[r]]);
  }
  for (size_t i = 0; i < f->num_values; ++i) cp_storage_release(values[i]);
  free(values);
  return error;
}
