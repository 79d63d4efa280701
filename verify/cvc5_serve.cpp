/* verify/cvc5_serve.cpp: the cvc5 side of the cvc5 backend, through cvc5's C++ API, run in the
 * rulegen-cvc5 helper (cvc5_serve.h says why and what subset of SMT-LIB2 it reads).
 *
 * A script is read and run command by command, as cvc5's own front end does: each term is
 * built through the API the moment its text has been read, symbols are looked up innermost
 * binder first, then among the script's declarations. Names of the text are views into it (it
 * outlives the Script). Whatever the reader does not know is a ScriptError, answered as
 * (error "line N: ...") with no verdict. */
#include "cvc5_serve.h"

#include <cvc5/cvc5.h>

#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "cvc5_options.h"
#include "serve.h"

namespace {

using cvc5::Kind;
using cvc5::Sort;
using cvc5::Term;

struct ScriptError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/* Function symbols of SMT-LIB2's core and integer theories that the encoder writes. */
const std::unordered_map<std::string_view, Kind> &builtin_kinds() {
  static const std::unordered_map<std::string_view, Kind> kinds = {
      {"and", Kind::AND},    {"or", Kind::OR},   {"not", Kind::NOT},
      {"=>", Kind::IMPLIES}, {"=", Kind::EQUAL}, {"distinct", Kind::DISTINCT},
      {"ite", Kind::ITE},    {"<=", Kind::LEQ},  {"<", Kind::LT},
      {">=", Kind::GEQ},     {">", Kind::GT},    {"+", Kind::ADD},
      {"*", Kind::MULT},     {"mod", Kind::INTS_MODULUS}};
  return kinds;
}

class Script {
public:
  Script(const char *text, int timeout_ms) : begin_(text), p_(text) {
#define SET_OPTION(name, value) slv_.setOption(name, value);
    RG_CVC5_OPTIONS(SET_OPTION)
#undef SET_OPTION
    slv_.setOption("tlimit-per", std::to_string(timeout_ms));
  }

  /* Runs every command of the script, appending what cvc5 prints to out. */
  void run(std::string &out) {
    for (skip(); *p_; skip())
      command(out);
  }

  /* The line the reader is on (for error messages). */
  int line() const {
    int n = 1;
    for (const char *q = begin_; q < p_; q++)
      n += *q == '\n';
    return n;
  }

private:
  cvc5::Solver slv_; /* first member: destroyed after every term that refers to it */
  const char *begin_, *p_;
  std::unordered_map<std::string_view, Sort> sorts_;
  std::unordered_map<std::string_view, Term> symbols_;
  std::vector<std::pair<std::string_view, Term>> bound_; /* innermost binder last */
  std::vector<std::pair<Term, std::string_view>> named_;
  bool last_unsat_ = false;

  [[noreturn]] void fail(const std::string &what) { throw ScriptError(what); }

  void skip() {
    for (;;) {
      while (*p_ == ' ' || *p_ == '\n' || *p_ == '\t' || *p_ == '\r')
        p_++;
      if (*p_ != ';') return;
      while (*p_ && *p_ != '\n')
        p_++;
    }
  }

  bool at(char c) {
    skip();
    return *p_ == c;
  }

  void expect(char c) {
    if (!at(c)) fail(std::string("expected '") + c + "'");
    p_++;
  }

  /* A symbol, keyword or numeral. Quoted symbols and strings are not in the encoder's subset. */
  std::string_view atom() {
    skip();
    const char *b = p_;
    while (*p_ && *p_ != ' ' && *p_ != '\n' && *p_ != '\t' && *p_ != '\r' && *p_ != '(' &&
           *p_ != ')' && *p_ != ';' && *p_ != '|' && *p_ != '"')
      p_++;
    if (p_ == b) fail(*p_ ? std::string("unexpected '") + *p_ + "'" : "unexpected end of script");
    return std::string_view(b, (size_t)(p_ - b));
  }

  /* Is the next thing "(head"? Consumes nothing. */
  bool peek_head(std::string_view head) {
    if (!at('(')) return false;
    const char *save = p_++;
    skip();
    bool yes = std::string_view(p_, head.size()) == head &&
               (p_[head.size()] == ' ' || p_[head.size()] == '\n' || p_[head.size()] == '(');
    p_ = save;
    return yes;
  }

  Sort sort() {
    std::string_view s = atom();
    if (s == "Int") return slv_.getIntegerSort();
    if (s == "Bool") return slv_.getBooleanSort();
    auto it = sorts_.find(s);
    if (it == sorts_.end()) fail("unknown sort " + std::string(s));
    return it->second;
  }

  Term symbol(std::string_view s) {
    for (size_t i = bound_.size(); i-- > 0;)
      if (bound_[i].first == s) return bound_[i].second;
    auto it = symbols_.find(s);
    if (it != symbols_.end()) return it->second;
    if (s == "true") return slv_.mkTrue();
    if (s == "false") return slv_.mkFalse();
    fail("unknown symbol " + std::string(s));
  }

  static bool numeral(std::string_view s) {
    for (char c : s)
      if (c < '0' || c > '9') return false;
    return true;
  }

  Term term() {
    if (!at('(')) {
      std::string_view s = atom();
      return numeral(s) ? slv_.mkInteger(std::string(s)) : symbol(s);
    }
    p_++;
    std::string_view head = atom();
    Term t =
        head == "forall" || head == "exists" ? quantifier(head == "forall") : application(head);
    expect(')');
    return t;
  }

  Term application(std::string_view head) {
    if (head == "!")
      fail("an annotation (!) is read only around an assertion or a quantifier body");
    std::vector<Term> args;
    while (!at(')'))
      args.push_back(term());
    if (head == "-") return slv_.mkTerm(args.size() == 1 ? Kind::NEG : Kind::SUB, args);
    auto b = builtin_kinds().find(head);
    if (b != builtin_kinds().end()) return slv_.mkTerm(b->second, args);
    Term f = symbol(head);
    if (!f.getSort().isFunction()) fail(std::string(head) + " is not a function");
    args.insert(args.begin(), f);
    return slv_.mkTerm(Kind::APPLY_UF, args);
  }

  /* (forall ((x S) ...) body), the opening parenthesis and the quantifier read. */
  Term quantifier(bool forall) {
    expect('(');
    size_t outer = bound_.size();
    std::vector<Term> vars;
    while (!at(')')) {
      expect('(');
      std::string_view name = atom();
      Term v = slv_.mkVar(sort(), std::string(name));
      expect(')');
      vars.push_back(v);
      bound_.emplace_back(name, v);
    }
    p_++;
    std::vector<Term> patterns;
    Term body = annotated(nullptr, &patterns);
    bound_.erase(bound_.begin() + static_cast<std::ptrdiff_t>(outer), bound_.end());
    std::vector<Term> parts = {slv_.mkTerm(Kind::VARIABLE_LIST, vars), body};
    if (!patterns.empty()) parts.push_back(slv_.mkTerm(Kind::INST_PATTERN_LIST, patterns));
    return slv_.mkTerm(forall ? Kind::FORALL : Kind::EXISTS, parts);
  }

  /* A term, or (! term :named N :pattern (t ...) ...) where the caller accepts those (name,
   * patterns: NULL where it does not). */
  Term annotated(std::string_view *name, std::vector<Term> *patterns) {
    if (!peek_head("!")) return term();
    expect('(');
    atom();
    Term t = term();
    while (!at(')')) {
      std::string_view key = atom();
      if (key == ":named" && name) {
        *name = atom();
      } else if (key == ":pattern" && patterns) {
        expect('(');
        std::vector<Term> ts;
        while (!at(')'))
          ts.push_back(term());
        p_++;
        patterns->push_back(slv_.mkTerm(Kind::INST_PATTERN, ts));
      } else {
        fail("annotation " + std::string(key) + " is not read here");
      }
    }
    p_++;
    return t;
  }

  void command(std::string &out) {
    expect('(');
    std::string_view head = atom();
    if (head == "set-option") {
      std::string_view key = atom();
      if (key.size() < 2 || key[0] != ':') fail("set-option needs a :keyword");
      slv_.setOption(std::string(key.substr(1)), std::string(atom()));
    } else if (head == "set-logic") {
      slv_.setLogic(std::string(atom()));
    } else if (head == "declare-sort") {
      std::string_view name = atom();
      if (atom() != "0") fail("only sorts of arity 0 are read");
      sorts_[name] = slv_.mkUninterpretedSort(std::string(name));
    } else if (head == "declare-fun" || head == "declare-const") {
      std::string_view name = atom();
      std::vector<Sort> domain;
      if (head == "declare-fun") {
        expect('(');
        while (!at(')'))
          domain.push_back(sort());
        p_++;
      }
      Sort range = sort();
      symbols_[name] = domain.empty() ? slv_.mkConst(range, std::string(name))
                                      : slv_.declareFun(std::string(name), domain, range);
    } else if (head == "assert") {
      std::string_view name;
      Term t = annotated(&name, nullptr);
      if (!name.empty()) named_.emplace_back(t, name);
      slv_.assertFormula(t);
    } else if (head == "check-sat") {
      cvc5::Result r = slv_.checkSat();
      last_unsat_ = r.isUnsat();
      out += r.isUnsat() ? "unsat\n" : r.isSat() ? "sat\n" : "unknown\n";
    } else if (head == "get-unsat-core") {
      if (!last_unsat_) fail("no unsat core: the last check-sat did not answer unsat");
      /* What (get-unsat-core) prints: the names of the named assertions in the core. */
      out += "(\n";
      for (const Term &t : slv_.getUnsatCore())
        for (const auto &n : named_)
          if (n.first == t) {
            out.append(n.second);
            out += '\n';
            break;
          }
      out += ")\n";
    } else {
      fail("command " + std::string(head) + " is not read (not one rulegen writes)");
    }
    expect(')');
  }
};

/* The Script is never deleted: the fork that answers ends right after (serve.h), and its
 * Solver's destructor would be a tenth of the query's work. */
void eval(char *text, int timeout_ms, rg_strbuf *out) {
  std::string answer;
  Script *s = nullptr;
  try {
    s = new Script(text, timeout_ms);
    s->run(answer);
  } catch (const std::exception &e) {
    /* As cvc5 answers a script it rejects; what was answered before stays in front. */
    std::string msg = e.what();
    for (char &c : msg)
      if (c == '"' || c == '\n') c = c == '"' ? '\'' : ' ';
    answer += "(error \"";
    if (s) answer += "line " + std::to_string(s->line()) + ": ";
    answer += msg + "\")\n";
  }
  rg_sb_append(out, answer.data(), answer.size());
}

/* cvc5's one-time set-up (option tables, its node manager, the theories and quantifier modules
 * a first check-sat builds), done in the helper before its first fork: every fork inherits it
 * (it was a third of an easy query's time). */
void prepare(int) {
  static bool done;
  if (done) return;
  done = true;
  static char script[] =
      "(set-logic UFLIA)(declare-sort T 0)(declare-fun f (T) T)(declare-const a T)"
      "(assert (forall ((x T)) (= (f x) x)))(assert (not (= (f a) a)))(check-sat)";
  std::string ignored;
  try {
    /* its teardown is the work the forks save; volatile, or an optimizing compiler drops a
     * store nothing reads and LeakSanitizer sees the Script unreachable at exit */
    static Script *volatile kept;
    kept = new Script(script, 1000);
    kept->run(ignored);
  } catch (const std::exception &) {
    /* only slower: each fork then sets cvc5 up itself, and says what is wrong */
  }
}

} // namespace

extern "C" int rg_cvc5_serve(int in_fd, int out_fd) {
  static const rg_serve_solver cvc5 = {"rulegen-cvc5", prepare, eval, nullptr};
  return rg_serve(in_fd, out_fd, &cvc5);
}

extern "C" void rg_cvc5_lib_version(char *buf, size_t size) {
  std::string v = cvc5::Solver().getVersion();
  std::snprintf(buf, size, "%s", v.c_str());
}
