package io.github.llmrouter.sim;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Locale;

/**
 * Renders simulation results as one self-contained HTML page (inline SVG, no scripts, no external
 * resources). For one run: the table, TTFT distributions per policy, hit rates against the
 * references, and TTFT p99 against the rate multiplier when a sweep was run. For a {@link
 * Comparison}: mean TTFT of every policy on every row, one grid per metric and the full table. The
 * policy {@code LlmClient} uses by default is marked "(default)".
 */
public final class HtmlReport {
  private static final String[] COLORS = {
      "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"};
  private static final int W = 640;
  private static final int H = 320;
  private static final int PAD = 50;

  private HtmlReport() {}

  /**
   * The page for {@code main} (run at rate multiplier {@code rate}) and, if not empty, a sweep: the
   * reports of the same policies at {@code rates}.
   */
  public static String render(SimulationReport main, double rate, List<Double> rates,
      List<SimulationReport> sweep) {
    requireNonNull(main, "main");
    if (rates.size() != sweep.size()) throw new IllegalArgumentException("rates and sweep differ in size");
    StringBuilder s = new StringBuilder();
    head(s, "llm-router simulation");
    s.append("<h1>llm-router simulation</h1><p>").append(esc(main.settings())).append(", rate ×")
        .append(SimulatorCli.fmt(rate)).append("</p>");
    s.append("<pre>").append(esc(main.toTable())).append("</pre>");
    s.append("<h2>TTFT distribution (CDF, log scale)</h2>");
    ttftCdf(s, main);
    s.append("<h2>Prompt-token cache hit rate</h2>");
    hitRates(s, main);
    if (!sweep.isEmpty()) {
      s.append("<h2>TTFT p99 versus load multiplier</h2>");
      sweepChart(s, main, rates, sweep);
      for (int i = 0; i < sweep.size(); i++) {
        s.append("<h3>rate ×").append(SimulatorCli.fmt(rates.get(i))).append("</h3><pre>")
            .append(esc(sweep.get(i).toTable())).append("</pre>");
      }
    }
    return s.append("</body></html>\n").toString();
  }

  /** The page for a comparison: every row's mean TTFT per policy, the metric grids, the table. */
  public static String render(Comparison c) {
    requireNonNull(c, "c");
    StringBuilder s = new StringBuilder();
    head(s, "llm-router comparison");
    s.append("<h1>llm-router comparison</h1><p>").append(esc(c.settings())).append("</p>");
    String def = c.defaultPolicy();
    if (def != null) {
      s.append("<p>").append(esc(def)).append(" (default) is the policy LlmClient uses when none is"
          + " set.</p>");
    }
    s.append("<h2>Mean TTFT per row (log scale)</h2>");
    comparisonChart(s, c);
    grid(s, c, "Mean TTFT, s", p -> fmt3(p.ttftMean()), false);
    grid(s, c, "TTFT p99, s", p -> String.format(Locale.ROOT, "%.2f", p.ttftP99()), false);
    grid(s, c, "Prompt-token hit rate (ideal: one infinite cache; fleet: one LRU as large as the"
        + " fleet's caches)", p -> percent(p.hitRate()), true);
    grid(s, c, "Goodput at the TTFT SLO, requests/s",
        p -> String.format(Locale.ROOT, "%.2f", p.goodput()), false);
    s.append("<h2>Full table</h2><pre>").append(esc(c.toTable())).append("</pre>");
    return s.append("</body></html>\n").toString();
  }

  private static String percent(double v) {
    return String.format(Locale.ROOT, "%.1f%%", v * 100);
  }

  private static String fmt3(double v) {
    return String.format(Locale.ROOT, "%.3f", v);
  }

  private static void head(StringBuilder s, String title) {
    s.append("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>").append(esc(title))
        .append("</title><style>body{font-family:sans-serif;margin:2em;max-width:1100px}")
        .append("pre{background:#f6f6f6;padding:1em;overflow-x:auto}svg{background:#fff;")
        .append("border:1px solid #ddd;margin:.5em 0}text{font-size:11px}table{border-collapse:")
        .append("collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}")
        .append("th{background:#f0f0f0}.d{font-weight:bold}</style></head><body>");
  }

  private static void grid(StringBuilder s, Comparison c,
      String title, java.util.function.Function<PolicyResult, String> cell, boolean references) {
    List<String> policies = c.policies();
    String def = c.defaultPolicy();
    s.append("<h2>").append(esc(title)).append("</h2><table><tr><th>workload</th><th>clients</th>")
        .append("<th>rate</th>");
    for (String p : policies) {
      s.append(p.equals(def) ? "<th class=\"d\">" : "<th>").append(esc(p))
          .append(p.equals(def) ? " (default)" : "").append("</th>");
    }
    if (references) s.append("<th>ideal</th><th>fleet</th>");
    s.append("</tr>");
    for (Comparison.Row r : c.rows()) {
      s.append("<tr><td>").append(esc(r.workload())).append("</td><td>").append(r.clients())
          .append("</td><td>").append(SimulatorCli.fmt(r.rate())).append("×</td>");
      for (String p : policies) {
        PolicyResult res = Comparison.find(r.report(), p);
        s.append(p.equals(def) ? "<td class=\"d\">" : "<td>")
            .append(res == null ? "-" : esc(cell.apply(res))).append("</td>");
      }
      if (references) {
        s.append("<td>").append(percent(r.report().idealHitRate())).append("</td><td>")
            .append(percent(r.report().fleetCapacityHitRate())).append("</td>");
      }
      s.append("</tr>");
    }
    s.append("</table>");
  }

  /** One column per row, one dot per policy at its mean TTFT (log scale). */
  private static void comparisonChart(StringBuilder s, Comparison c) {
    List<Comparison.Row> rows = c.rows();
    List<String> policies = c.policies();
    double lo = Double.MAX_VALUE;
    double hi = 1e-3;
    for (Comparison.Row r : rows) {
      for (PolicyResult p : r.report().results()) {
        hi = Math.max(hi, p.ttftMean());
        if (p.ttftMean() > 0) lo = Math.min(lo, p.ttftMean());
      }
    }
    double lLo = Math.floor(Math.log10(Math.min(lo, hi)));
    double lHi = Math.max(lLo + 1, Math.ceil(Math.log10(hi)));
    int w = Math.max(W, PAD * 2 + rows.size() * 28);
    int h = H + 90;
    int bottom = h - PAD - 80;
    s.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(w).append("\" height=\"")
        .append(h).append("\" viewBox=\"0 0 ").append(w).append(' ').append(h).append("\">");
    s.append(String.format(Locale.ROOT,
        "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>"
            + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>",
        PAD, bottom, w - PAD, bottom, PAD, PAD, PAD, bottom));
    for (double d = lLo; d <= lHi + 1e-9; d++) {
      double y = bottom - (d - lLo) / (lHi - lLo) * (bottom - PAD);
      s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
          PAD - 5, y + 4, label(Math.pow(10, d))));
    }
    double slot = (w - 2.0 * PAD) / Math.max(1, rows.size());
    for (int i = 0; i < rows.size(); i++) {
      Comparison.Row r = rows.get(i);
      double x = PAD + (i + 0.5) * slot;
      s.append(String.format(Locale.ROOT,
          "<text x=\"%.1f\" y=\"%d\" transform=\"rotate(60 %.1f %d)\">%s</text>", x, bottom + 12,
          x, bottom + 12, esc(r.workload() + " " + SimulatorCli.fmt(r.rate()) + "× " + r.clients() + "c")));
      for (PolicyResult p : r.report().results()) {
        int k = policies.indexOf(p.policy());
        double v = Math.max(Math.pow(10, lLo), p.ttftMean());
        double y = bottom - (Math.log10(v) - lLo) / (lHi - lLo) * (bottom - PAD);
        s.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" fill=\"%s\"/>",
            x, y, p.clientDefault() ? 5 : 3, color(k)));
      }
    }
    for (int k = 0; k < policies.size(); k++) {
      int y = PAD + k * 14;
      String name = policies.get(k) + (policies.get(k).equals(c.defaultPolicy()) ? " (default)" : "");
      s.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
          + "<text x=\"%d\" y=\"%d\">%s</text>", PAD + 10, y - 9, color(k), PAD + 25, y, esc(name)));
    }
    s.append("</svg>");
  }

  private static String label(PolicyResult p) {
    return p.policy() + (p.clientDefault() ? " (default)" : "");
  }

  private static void ttftCdf(StringBuilder s, SimulationReport r) {
    double lo = 1e-3;
    double hi = 1e-3;
    for (double[] t : r.sortedTtfts()) if (t.length > 0) hi = Math.max(hi, t[t.length - 1]);
    hi = Math.pow(10, Math.ceil(Math.log10(hi)));
    double lLo = Math.log10(lo);
    double lHi = Math.log10(hi);
    svgOpen(s);
    axes(s, "TTFT (s)", "fraction of requests");
    for (double d = lLo; d <= lHi + 1e-9; d++) {
      double x = PAD + (d - lLo) / (lHi - lLo) * (W - 2 * PAD);
      s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>",
          x, H - PAD + 15, label(Math.pow(10, d))));
    }
    for (int k = 0; k <= 4; k++) {
      double y = H - PAD - k / 4.0 * (H - 2 * PAD);
      s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%.2f</text>",
          PAD - 5, y + 4, k / 4.0));
    }
    List<double[]> all = r.sortedTtfts();
    for (int p = 0; p < all.size(); p++) {
      double[] t = all.get(p);
      if (t.length == 0) continue;
      StringBuilder pts = new StringBuilder();
      int points = Math.min(400, t.length);
      for (int k = 0; k < points; k++) {
        int i = (int) ((long) k * (t.length - 1) / Math.max(1, points - 1));
        double v = Math.max(lo, t[i]);
        double x = PAD + (Math.log10(v) - lLo) / (lHi - lLo) * (W - 2 * PAD);
        double y = H - PAD - (i + 1.0) / t.length * (H - 2 * PAD);
        pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
      }
      s.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(color(p))
          .append("\" points=\"").append(pts).append("\"/>");
    }
    legend(s, r);
    s.append("</svg>");
  }

  private static void hitRates(StringBuilder s, SimulationReport r) {
    List<PolicyResult> res = r.results();
    int bars = res.size() + 2;
    double slot = (W - 2.0 * PAD) / bars;
    double max = Math.max(0.01, r.idealHitRate());
    svgOpen(s);
    axes(s, "", "hit rate");
    for (int i = 0; i < bars; i++) {
      String name;
      double v;
      String c;
      if (i < res.size()) {
        name = label(res.get(i));
        v = res.get(i).hitRate();
        c = color(i);
      } else if (i == res.size()) {
        name = "fleet-capacity";
        v = r.fleetCapacityHitRate();
        c = "#bbbbbb";
      } else {
        name = "ideal";
        v = r.idealHitRate();
        c = "#888888";
      }
      double h = v / max * (H - 2 * PAD);
      double x = PAD + i * slot + slot * 0.15;
      s.append(String.format(Locale.ROOT,
          "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>", x,
          H - PAD - h, slot * 0.7, h, c));
      s.append(String.format(Locale.ROOT,
          "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.1f%%</text>", x + slot * 0.35,
          H - PAD - h - 4, v * 100));
      s.append(String.format(Locale.ROOT,
          "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>", x + slot * 0.35, H - PAD + 15,
          esc(name)));
    }
    s.append("</svg>");
  }

  private static void sweepChart(StringBuilder s, SimulationReport main, List<Double> rates,
      List<SimulationReport> sweep) {
    double xMax = 0;
    double yMax = 1e-3;
    for (int i = 0; i < sweep.size(); i++) {
      xMax = Math.max(xMax, rates.get(i));
      for (PolicyResult p : sweep.get(i).results()) yMax = Math.max(yMax, p.ttftP99());
    }
    double yLo = 1e-2;
    double lHi = Math.ceil(Math.log10(yMax));
    double lLo = Math.min(Math.log10(yLo), lHi - 1);
    svgOpen(s);
    axes(s, "rate multiplier", "TTFT p99 (s, log)");
    for (double d = lLo; d <= lHi + 1e-9; d++) {
      double y = H - PAD - (d - lLo) / (lHi - lLo) * (H - 2 * PAD);
      s.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>",
          PAD - 5, y + 4, label(Math.pow(10, d))));
    }
    for (int i = 0; i < rates.size(); i++) {
      double x = PAD + rates.get(i) / xMax * (W - 2 * PAD);
      s.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">×%s</text>",
          x, H - PAD + 15, SimulatorCli.fmt(rates.get(i))));
    }
    int policies = main.results().size();
    for (int p = 0; p < policies; p++) {
      StringBuilder pts = new StringBuilder();
      for (int i = 0; i < sweep.size(); i++) {
        double v = Math.max(Math.pow(10, lLo), sweep.get(i).results().get(p).ttftP99());
        double x = PAD + rates.get(i) / xMax * (W - 2 * PAD);
        double y = H - PAD - (Math.log10(v) - lLo) / (lHi - lLo) * (H - 2 * PAD);
        pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
        s.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>",
            x, y, color(p)));
      }
      s.append("<polyline fill=\"none\" stroke-width=\"2\" stroke=\"").append(color(p))
          .append("\" points=\"").append(pts).append("\"/>");
    }
    legend(s, main);
    s.append("</svg>");
  }

  private static void svgOpen(StringBuilder s) {
    s.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(W).append("\" height=\"")
        .append(H).append("\" viewBox=\"0 0 ").append(W).append(' ').append(H).append("\">");
  }

  private static void axes(StringBuilder s, String x, String y) {
    s.append(String.format(Locale.ROOT,
        "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>"
            + "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#000\"/>"
            + "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%s</text>"
            + "<text x=\"12\" y=\"%d\" text-anchor=\"middle\" transform=\"rotate(-90 12 %d)\">%s</text>",
        PAD, H - PAD, W - PAD, H - PAD, PAD, PAD, PAD, H - PAD, W / 2, H - 12, esc(x), H / 2, H / 2,
        esc(y)));
  }

  /** Top left: the empty corner of both line charts (CDFs rise to the right, p99 grows with load). */
  private static void legend(StringBuilder s, SimulationReport r) {
    List<PolicyResult> res = r.results();
    for (int p = 0; p < res.size(); p++) {
      int y = PAD + p * 14;
      s.append(String.format(Locale.ROOT,
          "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
              + "<text x=\"%d\" y=\"%d\">%s</text>",
          PAD + 10, y - 9, color(p), PAD + 25, y, esc(label(res.get(p)))));
    }
  }

  private static String color(int i) {
    return COLORS[i % COLORS.length];
  }

  private static String label(double v) {
    return v >= 1 ? String.format(Locale.ROOT, "%.0f s", v) : String.format(Locale.ROOT, "%.0f ms", v * 1000);
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
  }
}
