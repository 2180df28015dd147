package io.github.llmrouter.sim;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.ToDoubleFunction;

/**
 * The results of a comparison: one {@link SimulationReport} per row, a row being a workload at
 * one rate multiplier with one number of clients, rendered as text ({@link #toTable()}) and CSV
 * ({@link #toCsv(String)}). Immutable.
 *
 * <p>The policy {@code LlmClient} routes with when none is set is marked: {@code *} in the text,
 * {@code true} in the CSV's {@code default} column.
 */
public final class Comparison {
  /** The CSV header: {@value}. */
  public static final String CSV_HEADER =
      "policy,default,clients,rate,hit_rate,ttft_mean_s,ttft_p99_s,goodput";

  /** One row: {@code report} of {@code workload} at {@code rate}× with {@code clients} clients. */
  public record Row(String workload, int clients, double rate, SimulationReport report) {
    public Row {
      requireNonNull(workload, "workload");
      requireNonNull(report, "report");
    }
  }

  private final String settings;
  private final List<Row> rows;

  /** {@code settings} describes what every row shares (fleet, profile, seed, scrapes). */
  public Comparison(String settings, List<Row> rows) {
    this.settings = requireNonNull(settings, "settings");
    this.rows = List.copyOf(rows);
  }

  public String settings() {
    return settings;
  }

  public List<Row> rows() {
    return rows;
  }

  /** The workloads of the rows, in order of first appearance. */
  public List<String> workloads() {
    Set<String> names = new LinkedHashSet<>();
    for (Row r : rows) names.add(r.workload());
    return List.copyOf(names);
  }

  /** The policies of the rows, in report order. */
  List<String> policies() {
    Set<String> names = new LinkedHashSet<>();
    for (Row r : rows) for (PolicyResult p : r.report().results()) names.add(p.policy());
    return List.copyOf(names);
  }

  /** The name of the client's default policy among the rows' policies, or null if none is. */
  String defaultPolicy() {
    for (Row r : rows) for (PolicyResult p : r.report().results()) if (p.clientDefault()) return p.policy();
    return null;
  }

  /**
   * The rows of {@code workload} (all rows if null) as CSV: {@link #CSV_HEADER}, then one line per
   * policy and row; hit rate as a fraction, times in seconds, goodput in requests per second that
   * met the TTFT SLO.
   */
  public String toCsv(String workload) {
    StringBuilder s = new StringBuilder(CSV_HEADER).append('\n');
    for (Row r : rows) {
      if (workload != null && !workload.equals(r.workload())) continue;
      for (PolicyResult p : r.report().results()) {
        s.append(csvField(p.policy())).append(',').append(p.clientDefault()).append(',')
            .append(r.clients()).append(',').append(SimulatorCli.fmt(r.rate())).append(',')
            .append(String.format(Locale.ROOT, "%.4f,%.4f,%.4f,%.4f", p.hitRate(), p.ttftMean(),
                p.ttftP99(), p.goodput()))
            .append('\n');
      }
    }
    return s.toString();
  }

  /** A field quoted as RFC 4180 asks when it holds a comma, a quote or a line break. */
  private static String csvField(String v) {
    if (v.indexOf(',') < 0 && v.indexOf('"') < 0 && v.indexOf('\n') < 0 && v.indexOf('\r') < 0) return v;
    return '"' + v.replace("\"", "\"\"") + '"';
  }

  /**
   * The whole comparison as fixed-width text: every row and policy with hit rate, mean and p99
   * TTFT and goodput, then one grid per metric (rows by policies), and the mean TTFT of each
   * policy relative to the client's default policy. Identical for identical runs.
   */
  public String toTable() {
    List<String> policies = policies();
    String def = defaultPolicy();
    int nameWidth = 8;
    for (String p : policies) nameWidth = Math.max(nameWidth, p.length() + 2);
    int workloadWidth = 8;
    for (String w : workloads()) workloadWidth = Math.max(workloadWidth, w.length());
    StringBuilder s = new StringBuilder();
    s.append(settings).append('\n');
    if (def != null) s.append("* = the policy LlmClient uses by default (").append(def).append(")\n");
    s.append('\n');
    String head = "%-" + workloadWidth + "s %7s %6s  %-" + nameWidth + "s %7s %10s %9s %9s%n";
    String line = "%-" + workloadWidth + "s %7d %6s  %-" + nameWidth
        + "s %6.1f%% %9.3fs %8.2fs %7.2f/s%n";
    s.append(String.format(Locale.ROOT, head, "workload", "clients", "rate", "policy", "hit",
        "TTFT mean", "TTFT p99", "goodput"));
    for (Row r : rows) {
      for (PolicyResult p : r.report().results()) {
        s.append(String.format(Locale.ROOT, line, r.workload(), r.clients(),
            SimulatorCli.fmt(r.rate()) + "x", p.policy() + (p.clientDefault() ? " *" : ""),
            p.hitRate() * 100, p.ttftMean(), p.ttftP99(), p.goodput()));
      }
    }
    grid(s, "mean TTFT, s", policies, def, PolicyResult::ttftMean, "%.3f", null, false);
    grid(s, "TTFT p99, s", policies, def, PolicyResult::ttftP99, "%.2f", null, false);
    grid(s, "prompt-token hit rate, % (ideal: one infinite cache; fleet: one LRU as large as"
        + " the fleet's caches)", policies, def, p -> p.hitRate() * 100, "%.1f", null, true);
    grid(s, "goodput at the TTFT SLO, requests/s", policies, def, PolicyResult::goodput, "%.2f",
        null, false);
    if (def != null) {
      grid(s, "mean TTFT / " + def + "'s (below 1: better than " + def + ")", policies, def,
          PolicyResult::ttftMean, "%.2f", def, false);
    }
    return s.toString();
  }

  /**
   * One grid: a row per comparison row, a column per policy; with {@code relativeTo}, the metric
   * divided by that policy's in the same row; with {@code references}, the row's ideal and
   * fleet-capacity hit rates as two more columns.
   */
  private void grid(StringBuilder s, String title, List<String> policies, String def,
      ToDoubleFunction<PolicyResult> metric, String format, String relativeTo,
      boolean references) {
    s.append('\n').append(title).append('\n');
    List<Integer> widths = new ArrayList<>();
    int first = "workload, clients, rate".length() + 2;
    for (Row r : rows) first = Math.max(first, rowLabel(r).length() + 2);
    String firstColumn = "%-" + first + "s";
    s.append(String.format(Locale.ROOT, firstColumn, "workload, clients, rate"));
    for (String p : policies) {
      String h = p + (p.equals(def) ? " *" : "");
      int w = Math.max(8, h.length() + 1);
      widths.add(w);
      s.append(String.format(Locale.ROOT, "%" + w + "s", h));
    }
    if (references) s.append(String.format(Locale.ROOT, "%8s%8s", "ideal", "fleet"));
    s.append('\n');
    for (Row r : rows) {
      s.append(String.format(Locale.ROOT, firstColumn, rowLabel(r)));
      PolicyResult base = relativeTo == null ? null : find(r.report(), relativeTo);
      for (int k = 0; k < policies.size(); k++) {
        PolicyResult p = find(r.report(), policies.get(k));
        double v = p == null ? Double.NaN : metric.applyAsDouble(p);
        if (base != null) v /= metric.applyAsDouble(base);
        String cell = Double.isFinite(v) ? String.format(Locale.ROOT, format, v) : "-";
        // A cell wider than its column (minutes of queueing) still stays apart from the last.
        int w = widths.get(k);
        s.append(cell.length() >= w ? " " + cell : String.format(Locale.ROOT, "%" + w + "s", cell));
      }
      if (references) {
        s.append(String.format(Locale.ROOT, "%8.1f%8.1f", r.report().idealHitRate() * 100,
            r.report().fleetCapacityHitRate() * 100));
      }
      s.append('\n');
    }
  }

  private static String rowLabel(Row r) {
    return r.workload() + ", " + r.clients() + ", " + SimulatorCli.fmt(r.rate()) + "x";
  }

  static PolicyResult find(SimulationReport report, String policy) {
    for (PolicyResult p : report.results()) if (p.policy().equals(policy)) return p;
    return null;
  }

  @Override
  public String toString() {
    return "Comparison{rows=" + rows.size() + ", workloads=" + workloads() + '}';
  }
}
