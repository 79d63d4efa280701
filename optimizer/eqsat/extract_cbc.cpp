/* optimizer/eqsat/extract_cbc.cpp: CBC's solve, stoppable (extract_cbc.h). An event handler passed
 * into the model is cloned into every model CBC makes from it (the copy CbcMain1 searches, the
 * heuristics' sub-searches), and CBC asks it at each event: when the caller says stop, it says
 * so to CBC, which then ends as at its time limit, keeping its incumbent (CbcMain1 moves it
 * back into the caller's model). No C++ exception leaves here.
 *
 * Clp installs its own SIGINT handler around each LP it solves from scratch (the root's, the
 * feasibility pump's) and puts the old one back after: a Ctrl-C then would only cut that LP
 * short, and the program would never hear of it. So while CBC runs, SIGINT and SIGTERM are
 * blocked in this thread and taken by one of ours (sigtimedwait), which sets the caller's flag
 * as the program's handler would, and stops every model a live handler belongs to at once (as
 * CBC's own handler does, and with its time limit reached): the root's rounds of cuts send no
 * events, but look at those. */
#include <pthread.h>
#include <signal.h>
#include <time.h>

#include <atomic>
#include <new>

#include <CbcEventHandler.hpp>
#include <CbcModel.hpp>
#include <CbcSolver.hpp>
#include <OsiClpSolverInterface.hpp>

#define CBC_EXTERN_C /* the C interface's model as C++ sees it: its CbcModel is reached */
#include "extract_cbc.h"

namespace {

class stopper;

/* What the handlers (the one passed in and CBC's clones of it, which may outlive the solve)
 * and the signal thread share; the last of them frees it. */
struct shared {
  bool (*stop)(void *) = nullptr;
  void *ctx = nullptr;
  std::atomic<bool> said{false};
  std::atomic<int> refs{1};
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  stopper *live = nullptr; /* every handler alive, a list under lock */
};

void release(shared *sh) {
  if (--sh->refs == 0) delete sh;
}

/* Stops model m at its next look: an event happened, its time is up. */
void halt(CbcModel *m) {
  m->sayEventHappened();
  m->setMaximumSeconds(0);
}

class stopper : public CbcEventHandler {
public:
  explicit stopper(shared *sh) : sh_(sh) { enlist(); }
  stopper(const stopper &o) : CbcEventHandler(o), sh_(o.sh_) { enlist(); }
  stopper &operator=(const stopper &) = delete;
  ~stopper() override { /* ~CbcModel deletes its handler: the model goes with it */
    pthread_mutex_lock(&sh_->lock);
    *prev_ = next_;
    if (next_) next_->prev_ = prev_;
    pthread_mutex_unlock(&sh_->lock);
    release(sh_);
  }
  CbcEventHandler *clone() const override { return new stopper(*this); }
  CbcAction event(CbcEvent) override {
    if (!sh_->said && !sh_->stop(sh_->ctx)) return noAction;
    sh_->said = true; /* a sub-search's handler stops the main one too */
    if (model_) halt(model_);
    return stop;
  }
  /* Every live handler's model stopped (the signal thread, under lock). */
  static void halt_all(shared *sh) {
    for (stopper *s = sh->live; s; s = s->next_)
      if (s->model_) halt(s->model_);
  }

private:
  void enlist() {
    sh_->refs++;
    pthread_mutex_lock(&sh_->lock);
    prev_ = &sh_->live, next_ = sh_->live;
    if (next_) next_->prev_ = &next_;
    sh_->live = this;
    pthread_mutex_unlock(&sh_->lock);
  }
  shared *sh_;
  stopper **prev_ = nullptr, *next_ = nullptr;
};

/* SIGINT and SIGTERM blocked here and, until it goes, taken by a thread that sets *flag and
 * stops every model a live handler belongs to. */
class signal_taker {
public:
  signal_taker(volatile sig_atomic_t *flag, shared *sh) : flag_(flag), sh_(sh) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT), sigaddset(&set_, SIGTERM);
    if (!flag_ || pthread_sigmask(SIG_BLOCK, &set_, &old_)) return;
    blocked_ = true;
    running_ = pthread_create(&thread_, nullptr, take, this) == 0;
  }
  ~signal_taker() {
    done_ = true;
    if (running_) pthread_join(thread_, nullptr);
    if (blocked_) pthread_sigmask(SIG_SETMASK, &old_, nullptr); /* one that came since: the program's handler */
  }
  signal_taker(const signal_taker &) = delete;
  signal_taker &operator=(const signal_taker &) = delete;

private:
  static void *take(void *self) {
    signal_taker *t = static_cast<signal_taker *>(self);
    struct timespec tick = {0, 50 * 1000 * 1000}; /* done_ is looked at this often */
    while (!t->done_) {
      if (sigtimedwait(&t->set_, nullptr, &tick) <= 0) continue;
      *t->flag_ = 1;
      t->sh_->said = true;
      pthread_mutex_lock(&t->sh_->lock);
      stopper::halt_all(t->sh_);
      pthread_mutex_unlock(&t->sh_->lock);
    }
    return nullptr;
  }
  volatile sig_atomic_t *flag_;
  shared *sh_;
  sigset_t set_, old_;
  pthread_t thread_;
  bool blocked_ = false, running_ = false;
  std::atomic<bool> done_{false};
};

int solve(Cbc_Model *cbc, volatile sig_atomic_t *interrupted, shared *sh) {
  try {
    signal_taker signals(interrupted, sh);
    stopper h(sh);
    cbc->model_->passInEventHandler(&h); /* a clone is kept, and cloned on */
    Cbc_solve(cbc);
    cbc->model_->passInEventHandler(nullptr);
  } catch (const std::bad_alloc &) {
    return RG_CBC_NOMEM;
  } catch (...) {
    return RG_CBC_FAILED;
  }
  return sh->said ? RG_CBC_STOPPED : RG_CBC_DONE;
}

} // namespace

extern "C" int rg_cbc_solve(Cbc_Model *cbc, volatile sig_atomic_t *interrupted, bool (*stop)(void *ctx), void *ctx) {
  shared *sh = new (std::nothrow) shared;
  if (!sh) return RG_CBC_NOMEM;
  sh->stop = stop, sh->ctx = ctx;
  int how = solve(cbc, interrupted, sh);
  release(sh);
  return how;
}
