/*
 * A tiny client for Samsa's test control over HTTP (`samsa start --control`; docs/test-control.md).
 * JDK only (java.net.http, Java 11+): copy this file into a test tree. Each method is one call to
 * /control/...; calls that create something return its id; a refused call throws
 * SamsaControl.ControlException with the HTTP status and the broker's message.
 *
 *   SamsaControl control = new SamsaControl("http://127.0.0.1:9644");
 *   long rule = control.injectError("Produce", "NOT_LEADER_OR_FOLLOWER", 2);
 *   ...
 *   control.removeRule(rule);
 *   control.reset();
 */
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public final class SamsaControl {
  public static final class ControlException extends RuntimeException {
    public final int status;

    ControlException(int status, String message) {
      super(status + ": " + message);
      this.status = status;
    }
  }

  private final String base;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  public SamsaControl(String httpUrl) {
    this.base = httpUrl.replaceAll("/+$", "") + "/control";
  }

  /** Sends one call; returns the answer's JSON text. */
  public String call(String method, String path, Map<String, Object> body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60)).header("content-type", "application/json");
    b.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json(body)));
    try {
      HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        Matcher m = Pattern.compile("\"error\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(r.body());
        throw new ControlException(r.statusCode(), m.find() ? m.group(1) : r.body());
      }
      return r.body();
    } catch (IOException e) {
      throw new ControlException(0, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ControlException(0, "interrupted");
    }
  }

  /** A number field of a JSON answer ("id", "hits", "open", ...). */
  public static long number(String json, String field) {
    Matcher m = Pattern.compile("\"" + Pattern.quote(field) + "\"\\s*:\\s*(-?\\d+)").matcher(json);
    if (!m.find()) throw new IllegalArgumentException("no number '" + field + "' in " + json);
    return Long.parseLong(m.group(1));
  }

  private static Map<String, Object> fields(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) if (kv[i + 1] != null) m.put((String) kv[i], kv[i + 1]);
    return m;
  }

  private static String json(Object v) {
    if (v == null) return "null";
    if (v instanceof Number || v instanceof Boolean) return v.toString();
    if (v instanceof Map) {
      StringBuilder sb = new StringBuilder("{");
      for (Map.Entry<?, ?> e : ((Map<?, ?>) v).entrySet()) {
        if (sb.length() > 1) sb.append(',');
        sb.append(json(String.valueOf(e.getKey()))).append(':').append(json(e.getValue()));
      }
      return sb.append('}').toString();
    }
    if (v instanceof Iterable) {
      StringBuilder sb = new StringBuilder("[");
      for (Object x : (Iterable<?>) v) sb.append(sb.length() > 1 ? "," : "").append(json(x));
      return sb.append(']').toString();
    }
    String s = v.toString();
    StringBuilder sb = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') sb.append('\\').append(c);
      else if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
      else sb.append(c);
    }
    return sb.append('"').toString();
  }

  // Rules: each returns an id for removeRule.
  public long injectError(String api, String error, int count) {
    return number(call("POST", "/inject-error", fields("api", api, "error", error, "count", count)), "id");
  }

  public long injectError(String api, String error, int count, String topic, Integer partition) {
    return number(call("POST", "/inject-error", fields("api", api, "error", error, "count", count, "topic", topic, "partition", partition)), "id");
  }

  public long addLatency(String api, int ms) {
    return number(call("POST", "/latency", fields("api", api, "ms", ms)), "id");
  }

  public long dropNextRequest(String api, int count) {
    return number(call("POST", "/drop", fields("api", api, "count", count)), "id");
  }

  /** Removes a rule; returns how many requests it acted on. */
  public long removeRule(long id) {
    return number(call("DELETE", "/rules/" + id, null), "hits");
  }

  // Holding a request until the test lets it go.
  public long holdNextRequest(String api) {
    return number(call("POST", "/hold", fields("api", api)), "id");
  }

  /** The held exchange (JSON) once a request is held. */
  public String waitHeld(long id, int timeoutMs) {
    return call("POST", "/holds/" + id + "/wait", fields("timeoutMs", timeoutMs));
  }

  public void release(long id) {
    call("POST", "/holds/" + id + "/release", fields());
  }

  public void dropHeld(long id) {
    call("POST", "/holds/" + id + "/drop", fields());
  }

  // Recording.
  public long record(Iterable<String> apis) {
    return number(call("POST", "/record", fields("apis", apis)), "id");
  }

  /** {"exchanges": [...]} as JSON text. */
  public String exchanges(long id) {
    return call("GET", "/recordings/" + id, null);
  }

  public void stopRecording(long id) {
    call("DELETE", "/recordings/" + id, null);
  }

  // Connections, waits, reset.
  public void disconnectAll() {
    call("POST", "/disconnect-all", fields());
  }

  public long openConnections() {
    return number(call("GET", "/connections", null), "open");
  }

  public void waitForHighWatermark(String topic, int partition, long offset, int timeoutMs) {
    call("POST", "/wait/high-watermark", fields("topic", topic, "partition", partition, "offset", offset, "timeoutMs", timeoutMs));
  }

  public String waitForGroupStable(String groupId, int timeoutMs) {
    return call("POST", "/wait/group-stable", fields("groupId", groupId, "timeoutMs", timeoutMs));
  }

  public void waitForCommittedOffset(String groupId, String topic, int partition, long offset, int timeoutMs) {
    call("POST", "/wait/committed-offset", fields("groupId", groupId, "topic", topic, "partition", partition, "offset", offset, "timeoutMs", timeoutMs));
  }

  public void reset() {
    call("POST", "/reset", fields());
  }
}
