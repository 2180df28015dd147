package io.github.llmrouter.internal.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.github.llmrouter.load.LoadReport;
import org.junit.jupiter.api.Test;

/** The recent queue wait estimated from successive queue-time histogram totals. */
class QueueWaitTest {
  private static final long SECOND = 1_000_000_000L;

  private static LoadReport totals(double sum, double count, long atSeconds) {
    return new LoadReport(1, 1, 0.5, sum, count, atSeconds * SECOND, LoadReport.Source.SCRAPE);
  }

  @Test
  void theFirstTotalsAreOnlyABaseline() {
    QueueWait w = QueueWait.next(null, totals(100, 50, 0));
    assertThat(w.seconds()).isNaN();
  }

  @Test
  void theMeanWaitOfTheRequestsAdmittedBetweenTwoReportsStartsTheEstimate() {
    QueueWait w = QueueWait.next(null, totals(100, 50, 0));
    w = QueueWait.next(w, totals(106, 53, 1)); // 3 admitted, 6 s of waiting between them
    assertThat(w.seconds()).isEqualTo(2.0);
  }

  @Test
  void laterIntervalsAreAveragedByTheirLength() {
    QueueWait w = QueueWait.next(null, totals(0, 0, 0));
    w = QueueWait.next(w, totals(4, 2, 1)); // 2 s
    w = QueueWait.next(w, totals(4, 3, 2)); // one admitted at once: 0 s
    double weight = 1 - Math.exp(-1 / QueueWait.TIME_CONSTANT_SECONDS);
    assertThat(w.seconds()).isCloseTo(2.0 - 2.0 * weight, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void anIntervalWithoutAdmissionsKeepsEstimateAndBaseline() {
    QueueWait w = QueueWait.next(null, totals(10, 5, 0));
    w = QueueWait.next(w, totals(14, 7, 1));
    QueueWait idle = QueueWait.next(w, totals(14, 7, 2));
    assertThat(idle).isEqualTo(w);
    // The next admissions are measured from the kept baseline: 2 admitted, 8 s over 2 s.
    QueueWait after = QueueWait.next(idle, totals(22, 9, 3));
    double weight = 1 - Math.exp(-2 / QueueWait.TIME_CONSTANT_SECONDS);
    assertThat(after.seconds()).isCloseTo(2.0 + weight * (4.0 - 2.0),
        org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void totalsThatGoDownStartANewBaselineAndKeepTheEstimate() {
    QueueWait w = QueueWait.next(null, totals(10, 5, 0));
    w = QueueWait.next(w, totals(14, 7, 1));
    QueueWait restarted = QueueWait.next(w, totals(1, 1, 2));
    assertThat(restarted.seconds()).isEqualTo(2.0);
    assertThat(restarted.sum()).isEqualTo(1);
    assertThat(restarted.count()).isEqualTo(1);
  }

  @Test
  void aReportWithoutTotalsCarriesTheEstimateForward() {
    QueueWait w = QueueWait.next(QueueWait.next(null, totals(10, 5, 0)), totals(14, 7, 1));
    LoadReport header = new LoadReport(3, -1, Double.NaN, 5 * SECOND, LoadReport.Source.HEADER);
    assertThat(QueueWait.next(w, header)).isSameAs(w);
  }
}
