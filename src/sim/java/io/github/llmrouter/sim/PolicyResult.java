package io.github.llmrouter.sim;

/**
 * What one policy achieved on one simulated run. Times are in seconds.
 *
 * @param policy the policy's name
 * @param clientDefault whether it is the policy {@code LlmClient} routes with when none is set
 * @param requests requests served
 * @param hitRate cached prompt tokens / prompt tokens
 * @param hitRateOfIdeal {@code hitRate} as a fraction of the trace's ideal hit rate
 * @param ttftMean mean time to first token
 * @param ttftP50 median time to first token
 * @param ttftP99 99th percentile time to first token
 * @param e2eP99 99th percentile end-to-end latency (arrival to last token)
 * @param queueWaitMean mean time from arrival to admission into the running batch
 * @param throughput output tokens per second, from the first arrival to the last completion
 * @param loadImbalance max / mean over replicas of request-seconds spent there (queued or running):
 *     1.0 is perfectly even
 * @param sloAttainment fraction of requests whose TTFT met the run's SLO
 * @param goodput requests per second that met the TTFT SLO
 * @param hedgedShare share of requests that sent a hedge (0 unless the run hedges)
 */
public record PolicyResult(
    String policy, boolean clientDefault, int requests, double hitRate, double hitRateOfIdeal, double ttftMean,
    double ttftP50, double ttftP99, double e2eP99, double queueWaitMean, double throughput,
    double loadImbalance, double sloAttainment, double goodput, double hedgedShare) {}
