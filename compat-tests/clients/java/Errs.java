import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.protocol.Errors;

/**
 * How the compatibility suite names what the Java client observed: the protocol error name
 * (Kafka's error table) when the exception stands for a broker error code, else
 * "client:<class>: <message>" so that a client-side failure is never mistaken for a broker answer.
 *
 * Run as a program it prints {exception class: error name} for the whole table, for the CLI
 * driver, which only sees class names in the tools' output.
 */
final class Errs {
  private Errs() {}

  /**
   * The consumer raises its own OffsetOutOfRangeException (not an ApiException) when the broker
   * answered OFFSET_OUT_OF_RANGE and auto.offset.reset=none leaves nothing else to do.
   */
  private static final Class<?> CONSUMER_OOR = org.apache.kafka.clients.consumer.OffsetOutOfRangeException.class;

  static String name(Throwable t) {
    Throwable e = brokerCause(t);
    if (e == null) return label(unwrap(t));
    if (CONSUMER_OOR.isInstance(e)) return Errors.OFFSET_OUT_OF_RANGE.name();
    // The client raises TimeoutException for its own deadlines (metadata wait, delivery timeout)
    // far more often than a broker answers REQUEST_TIMED_OUT; the label keeps the message, so a
    // broker's one stays recognisable.
    if (e instanceof TimeoutException) return label(e);
    Errors err = Errors.forException(e);
    if (err == Errors.UNKNOWN_SERVER_ERROR && !(e instanceof UnknownServerException)) return label(e);
    return err.name();
  }

  /** The first exception in the cause chain that carries a broker error, or null. */
  private static Throwable brokerCause(Throwable t) {
    Throwable e = t;
    for (int i = 0; i < 10 && e != null; i++, e = e.getCause()) {
      if (e instanceof ApiException || CONSUMER_OOR.isInstance(e)) return e;
    }
    return null;
  }

  private static Throwable unwrap(Throwable t) {
    Throwable e = t;
    while ((e instanceof ExecutionException || e instanceof CompletionException) && e.getCause() != null) e = e.getCause();
    return e;
  }

  private static String label(Throwable e) {
    String msg = String.valueOf(e.getMessage());
    if (msg.length() > 160) msg = msg.substring(0, 160);
    return "client:" + e.getClass().getSimpleName() + ": " + msg;
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> table = new TreeMap<>();
    for (Errors err : Errors.values()) {
      ApiException x = err.exception();
      if (err == Errors.NONE || x == null) continue;
      table.put(x.getClass().getName(), Errors.forException(x).name());
    }
    table.put(CONSUMER_OOR.getName(), Errors.OFFSET_OUT_OF_RANGE.name());
    System.out.println(new ObjectMapper().writeValueAsString(table));
  }
}
