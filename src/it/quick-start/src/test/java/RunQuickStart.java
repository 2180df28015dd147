import io.github.llmrouter.emulator.EmulatedReplica;

/**
 * Runs the README's quick start (src/main/java/QuickStart.java, kept identical to the README's
 * block by the main build's ReadmeTest) against two emulated replicas on loopback.
 */
public final class RunQuickStart {
  private RunQuickStart() {}

  public static void main(String[] args) {
    try (EmulatedReplica a = EmulatedReplica.builder().id("a").build().start();
        EmulatedReplica b = EmulatedReplica.builder().id("b").build().start()) {
      QuickStart.main(new String[] {EmulatedReplica.DEFAULT_MODEL, a.baseUrl(), b.baseUrl()});
      long served = a.stats().completed() + b.stats().completed();
      if (served != 3) throw new AssertionError("the replicas served " + served + " calls, not 3");
      System.out.println("The README's quick start ran: 3 calls routed to emulated replicas.");
    }
  }
}
