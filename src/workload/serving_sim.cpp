// The serving benchmark, simulated step by step (serving_sim.hpp). Why a
// simulation and not a queueing formula: with fixed prompt and output
// lengths, as the benchmarks' random datasets send them, requests started
// together stay in lockstep (their prefills land in the same steps, their
// ends too), so TTFT and ITL depend on where in that cycle a request starts;
// the engines' token budgets and prefill policies shape that cycle, and a
// step-level simulation follows them directly. A step costs what
// StepModel prices for the tokens it runs. The state is kept as counts and
// sums so that a step costs O(1): every decode advances in every step that
// runs decodes, so a request's context and its end follow from the step it
// started decoding in.
#include "serving_sim.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <vector>

#include "gpuadvisor/workload/constants.hpp"

namespace gpuadvisor::workload::detail {
namespace {

/// A request from the client's view.
struct Request {
  double sent = 0;        ///< when the client sent it
  double first = 0;       ///< its first token
  double computed = 0;    ///< prompt tokens prefilled so far
  std::int64_t tick = 0;  ///< the decode tick its first token came at
};

/// Linear-interpolated percentile q (0-100) of `v` (reordered), numpy's default.
double percentile(std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const double pos = q / 100 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(pos);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  const double a = v[lo];
  if (lo + 1 >= v.size()) return a;
  const double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
  return a + (b - a) * (pos - static_cast<double>(lo));
}

LatencyStats stats(std::vector<double>& v, bool percentiles, double sum, double count) {
  LatencyStats s;
  s.mean = count > 0 ? sum / count : 0;
  if (percentiles) {
    s.median = percentile(v, 50);
    s.p99 = percentile(v, 99);
  }
  return s;
}

/// Deterministic Poisson arrivals: splitmix64 (Steele, Lea and Flood 2014)
/// gives the uniform draws, so results do not depend on the standard
/// library's distributions.
class Arrivals {
 public:
  explicit Arrivals(double rate) : rate_(rate) {}
  /// The next arrival: the first at 0 (the benchmark sends it at once),
  /// then exponential gaps of mean 1 / rate.
  double next() {
    if (first_) {
      first_ = false;
      return 0;
    }
    state_ += 0x9E3779B97F4A7C15ULL;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    const double u = (static_cast<double>(z >> 11) + 0.5) / 9007199254740992.0;  // (0, 1)
    t_ += -std::log(u) / rate_;
    return t_;
  }

 private:
  double rate_;
  bool first_ = true;
  double t_ = 0;
  std::uint64_t state_ = 0x5EED;
};

}  // namespace

/// Percentile q of step durations each counted `weight` times (the ITL of
/// every decode in the step), linear between neighbouring ranks.
double weighted_percentile(std::vector<std::pair<double, double>>& v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  double total = 0;
  for (const auto& x : v) total += x.second;
  // Ranks 0 .. total - 1; the value at rank floor(pos) and the next.
  const double pos = q / 100 * (total - 1);
  const double r = std::floor(pos);
  double seen = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    seen += v[i].second;  // this run holds ranks up to seen - 1
    if (seen > r) {
      const double next = seen > r + 1 || i + 1 == v.size() ? v[i].first : v[i + 1].first;
      return v[i].first + (next - v[i].first) * (pos - r);
    }
  }
  return v.back().first;
}

int default_num_prompts(const LoadSpec& spec) {
  if (spec.num_prompts > 0) return spec.num_prompts;
  if (spec.request_rate > 0) return 200;
  // Ten rounds, at most the --num-prompts bound (two rounds of the largest
  // concurrency still leave a steady state between burst and ramp-down).
  return static_cast<int>(
      std::clamp<std::int64_t>(10LL * std::max(1, spec.max_concurrency), 100,
                               std::max<std::int64_t>(k::kMaxPrompts, 3LL * spec.max_concurrency)));
}

ServingLoad simulate_load(const Workload& w, const StepModel& model, int max_running,
                          const LoadSpec& spec) {
  ServingLoad out;
  const auto& profile = engine_profile(w.engine);
  const int total = default_num_prompts(spec);
  const double prompt = std::max(1, w.prompt_len);
  const std::int64_t output = std::max(1, w.output_len);
  const int cap_client = spec.max_concurrency > 0 ? spec.max_concurrency : total;
  const int cap_engine = std::max(1, max_running);
  const double budget =
      model.step_tokens() > 0 ? model.step_tokens() : std::numeric_limits<double>::infinity();
  out.request_rate = spec.request_rate;
  out.max_concurrency = spec.max_concurrency;
  out.num_prompts = total;
  out.engine_max_running = cap_engine;
  out.step_tokens = model.step_tokens() > 0 ? static_cast<int>(model.step_tokens()) : 0;

  std::vector<Request> req(static_cast<std::size_t>(total));
  std::vector<double> ttft, tpot, e2el;
  std::vector<std::pair<double, double>> itl;  // (step duration, decodes in it)
  double ttft_sum = 0, tpot_sum = 0, e2el_sum = 0, itl_sum = 0, itl_count = 0, user_sum = 0;
  if (spec.percentiles) {
    ttft.reserve(req.size());
    tpot.reserve(req.size());
    e2el.reserve(req.size());
  }

  Arrivals arrivals(spec.request_rate > 0 ? spec.request_rate : 1);
  std::vector<double> arrive(req.size(), 0);
  if (spec.request_rate > 0) {
    for (auto& a : arrive) a = arrivals.next();
  }
  std::size_t arrived = 0;           // requests whose arrival time has come
  std::deque<std::size_t> held;      // arrived, waiting for the client's cap
  std::deque<std::size_t> waiting;   // sent, not yet running in the engine
  std::deque<std::size_t> prefill;   // running, prompt not done
  std::deque<std::size_t> decoding;  // running, ordered by the tick they started decoding
  int in_flight = 0, done = 0, counted = 0;
  double freed = 0;  // when the client last had a free place
  // Prompt-only steps (SGLang's) the decoding requests wait through, and how
  // many waited: their next token's gap holds them.
  double stall = 0, stalled = 0;
  const auto warmup = static_cast<std::size_t>(std::clamp(spec.warmup, 0, total - 1));
  // The last request counted (exclusive): the cooldown left out.
  const auto last = std::max(
      warmup + 1, req.size() - static_cast<std::size_t>(std::clamp(spec.cooldown, 0, total)));
  auto counts = [&](std::size_t i) { return i >= warmup && i < last; };
  out.warmup = static_cast<int>(warmup);
  out.cooldown = static_cast<int>(req.size() - last);

  double tokens = 0;  // output tokens so far
  bool window_open = warmup == 0;
  double window_start = 0, window_tokens = 0, window_end = 0, window_end_tokens = 0;
  std::int64_t tick = 0;  // steps that ran decodes
  double tick_sum = 0;    // sum of the decoding requests' start ticks
  double now = 0, running_time = 0;

  // The client sends a request when it arrives, or when a place frees
  // (benchmarks time a request from then).
  auto send = [&](std::size_t i, double at) {
    req[i].sent = at;
    waiting.push_back(i);
    ++in_flight;
    if (i == warmup) {
      window_open = true;
      window_start = now;
      window_tokens = tokens;
    }
    if (i + 1 == req.size()) {
      window_end = now;
      window_end_tokens = tokens;
      if (spec.cooldown > 0) window_open = false;
    }
  };
  auto finish = [&](std::size_t i) {
    --in_flight;
    ++done;

    if (!counts(i)) return;
    ++counted;
    const double e = now - req[i].sent, t = req[i].first - req[i].sent;
    e2el_sum += e;
    if (spec.percentiles) e2el.push_back(e);
    if (output > 1) {
      const double per = (e - t) / static_cast<double>(output - 1);
      tpot_sum += per;
      if (per > 0) user_sum += 1 / per;
      if (spec.percentiles) tpot.push_back(per);
    }
  };

  std::vector<std::pair<std::size_t, double>> chunks;  // (request, its prompt tokens this step)
  while (done < total) {
    // The client: arrivals come due (all at once without a rate) and are
    // sent while fewer than its cap are in flight.
    while (arrived < req.size() && arrive[arrived] <= now) held.push_back(arrived++);
    // Places free only at step ends, so one free now was free at arrival
    // for a request that came during the last step; one held longer got it now.
    while (!held.empty() && in_flight < cap_client) {
      const std::size_t i = held.front();
      send(i, std::max(arrive[i], freed));
      held.pop_front();
    }
    const auto running = [&] { return prefill.size() + decoding.size(); };
    // The engine admits waiting requests up to its cap; a static batch only
    // when the previous batch has ended.
    if (profile.scheduler != Scheduler::static_batch || running() == 0) {
      while (!waiting.empty() && running() < static_cast<std::size_t>(cap_engine)) {
        prefill.push_back(waiting.front());
        waiting.pop_front();
      }
    }
    if (running() == 0) {                // idle until the next arrival
      if (arrived >= req.size()) break;  // unreachable: what is not done has arrived
      now = std::max(now, arrive[arrived]);
      continue;
    }

    // What this step runs.
    const double decodes_all = static_cast<double>(decoding.size());
    bool run_decodes = !decoding.empty();
    double chunk_tokens = 0, chunk_pairs = 0, chunk_requests = 0;
    chunks.clear();
    double step = 0, stretch = 1;
    if (profile.scheduler == Scheduler::static_batch && !prefill.empty()) {
      // The whole batch's prompts in one pass, decodes of none.
      for (auto i : prefill) chunks.emplace_back(i, prompt - req[i].computed);
      step = model.prefill(static_cast<double>(prefill.size()));
      run_decodes = false;
    } else {
      const bool prefill_alone = profile.scheduler == Scheduler::prefill_first && !prefill.empty();
      if (prefill_alone) run_decodes = false;
      double room = budget - (run_decodes ? decodes_all : 0);
      for (auto i : prefill) {
        if (room <= 0) break;
        const double left = prompt - req[i].computed;
        double take = std::min(left, room);
        if (!w.chunked_prefill && take < left) {
          // Whole prompts only: this one waits for a step with room for it.
          // One longer than any step's budget (TensorRT-LLM would refuse it)
          // runs whole in a step with no other prompt.
          if (!chunks.empty() || left <= budget) break;
          take = left;
        }
        chunks.emplace_back(i, take);
        // Causal attention of tokens c+1..c+take over keys 1..c+take.
        chunk_pairs += take * req[i].computed + take * (take + 1) / 2;
        chunk_tokens += take;
        chunk_requests += 1;
        room -= take;
      }
      const double decodes = run_decodes ? decodes_all : 0;
      // Contexts: a request that started decoding at tick s reads P + 1 + (tick - s) keys.
      const double context =
          decodes > 0 ? prompt + 1 + static_cast<double>(tick) - tick_sum / decodes : 0;
      step = model.step(decodes, context, chunk_tokens, chunk_requests, chunk_pairs).seconds();
      const bool admits = !waiting.empty() && running() < static_cast<std::size_t>(cap_engine);
      if (chunks.empty() && !admits && decodes > 0) {
        // Decodes alone until the next request ends or arrives: those steps
        // differ only in the context, which grows by one token a step, so
        // they run as one stretch priced at its middle context.
        const auto& front = req[decoding.front()];
        double k = static_cast<double>(front.tick + output - 1 - tick);
        if (arrived < req.size()) k = std::min(k, std::ceil((arrive[arrived] - now) / step));
        if (k > 1) {
          step = model.step(decodes, context + (k - 1) / 2).seconds();
          stretch = k;
        }
      }
    }
    now += step * stretch;
    running_time += step * stretch * static_cast<double>(running());

    if (run_decodes) {
      tick += static_cast<std::int64_t>(stretch);
      tokens += decodes_all * stretch;
      // Inter-token gaps (in the steady state the warm-up leaves, every
      // request's): a step each, and for the requests that waited through
      // prompt-only steps (SGLang) those steps too.
      if (window_open) {
        const double waited = std::min(stalled, decodes_all);
        itl_sum += step * decodes_all * stretch + stall * waited;
        itl_count += decodes_all * stretch;
        if (spec.percentiles) {
          if (waited > 0) itl.emplace_back(step + stall, waited);
          itl.emplace_back(step, decodes_all * stretch - waited);
        }
      }
      stall = 0;
      stalled = 0;
      // Requests whose last token this was (output - 1 decode ticks after their first).
      while (!decoding.empty() && tick - req[decoding.front()].tick >= output - 1) {
        const std::size_t i = decoding.front();
        decoding.pop_front();
        tick_sum -= static_cast<double>(req[i].tick);
        finish(i);
      }
    } else if (!decoding.empty()) {
      stall += step * stretch;
      stalled = std::max(stalled, decodes_all);
    }
    for (const auto& [i, take] : chunks) {
      req[i].computed += take;
      if (req[i].computed < prompt) continue;
      req[i].first = now;
      tokens += 1;
      if (counts(i)) {
        const double t = now - req[i].sent;
        ttft_sum += t;
        if (spec.percentiles) ttft.push_back(t);
      }
      if (output == 1) {
        finish(i);
      } else {
        req[i].tick = tick;
        tick_sum += static_cast<double>(tick);
        decoding.push_back(i);
      }
    }
    while (!prefill.empty() && req[prefill.front()].computed >= prompt) prefill.pop_front();
    // A request that finished frees a place: the closed-loop client sends the next.
    if (in_flight < cap_client) freed = now;
    if (spec.request_rate <= 0) {
      while (!held.empty() && in_flight < cap_client) {
        send(held.front(), now);
        held.pop_front();
      }
    }
  }

  const double n = counted;
  out.duration_s = now;
  out.request_throughput = now > 0 ? total / now : 0;
  out.output_throughput = now > 0 ? total * static_cast<double>(output) / now : 0;
  if (warmup > 0 && window_end > window_start) {
    const double span = window_end - window_start;
    out.output_throughput = (window_end_tokens - window_tokens) / span;
    out.request_throughput = out.output_throughput / static_cast<double>(output);
    out.duration_s = span;
  }
  out.ttft = stats(ttft, spec.percentiles, ttft_sum, n);
  out.tpot = stats(tpot, spec.percentiles, tpot_sum, output > 1 ? n : 0);
  out.e2el = stats(e2el, spec.percentiles, e2el_sum, n);
  out.output_throughput_per_user = output > 1 && n > 0 ? user_sum / n : 0;
  out.itl.mean = itl_count > 0 ? itl_sum / itl_count : 0;
  if (spec.percentiles) {
    out.itl.median = weighted_percentile(itl, 50);
    out.itl.p99 = weighted_percentile(itl, 99);
  }
  out.mean_running = now > 0 ? running_time / now : 0;
  // With a rate: a replica that keeps up holds about as many in flight as
  // the last request arrives as when the middle one did; one that does not
  // holds ever more.

  return out;
}

}  // namespace gpuadvisor::workload::detail
