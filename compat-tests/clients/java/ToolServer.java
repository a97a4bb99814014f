// Kafka's command-line tools, run one after another inside this one JVM, for the compat suite's
// kafka-cli driver (clients/kafka-cli.ts): what a tool does against the broker is what the
// kafka-*.sh script does (the same main class, arguments and configuration), without a JVM start
// (about a CPU-second each) per operation.
//
// A request is one line on stdin, tab-separated, every field base64: the main class, the tool's
// stdin, then its arguments. The answer is one line on stdout: the exit status, then the tool's
// stdout and stderr (base64), tab-separated. During a run System.in, out and err are the tool's
// own (log4j2.properties follows System.err); Kafka's Exit.exit and Exit.halt end the run with
// their status instead of the JVM: the first call decides the status, as the JVM's first exit
// would, and what the tool prints after it (while the exception unwinds through its catch blocks)
// is dropped, as a real exit would never print it. The shutdown hooks a tool adds through Exit run
// when its run ends, as the JVM runs them when it ends (the console producer closes its producer,
// and so sends what it read, in one), and what they print is kept. A tool that throws ends with
// status 1 and its stack trace on stderr, as the JVM would print it.
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.apache.kafka.common.utils.internals.Exit;

public class ToolServer {
  static final class ToolExit extends RuntimeException {
    final int status;

    ToolExit(int status) {
      super("exit " + status, null, false, false);
      this.status = status;
    }
  }

  /** The status of the run's first exit, or null while it has not exited. */
  static volatile Integer exited;
  /** While the run's shutdown hooks run, output is kept again. */
  static volatile boolean inHooks;
  /** The shutdown hooks the run added. */
  static final List<Runnable> hooks = new ArrayList<>();

  /** A run's stdout or stderr: kept until the run's first exit. */
  static final class RunOutput extends OutputStream {
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    @Override
    public synchronized void write(int b) {
      if (exited == null || inHooks) bytes.write(b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      if (exited == null || inHooks) bytes.write(b, off, len);
    }
  }

  static RuntimeException exit(int status) {
    if (exited == null) exited = status;
    return new ToolExit(status);
  }

  static String b64(byte[] b) {
    return Base64.getEncoder().encodeToString(b);
  }

  static byte[] unb64(String s) {
    return Base64.getDecoder().decode(s);
  }

  public static void main(String[] argv) throws Exception {
    PrintStream answers = System.out;
    PrintStream serverErr = System.err;
    InputStream serverIn = System.in;
    Exit.setExitProcedure((status, message) -> {
      throw exit(status);
    });
    Exit.setHaltProcedure((status, message) -> {
      throw exit(status);
    });
    Exit.setShutdownHookAdder((name, runnable) -> {
      synchronized (hooks) {
        hooks.add(runnable);
      }
    });
    BufferedReader requests = new BufferedReader(new InputStreamReader(serverIn, StandardCharsets.UTF_8));
    answers.println("READY");
    answers.flush();
    for (String line = requests.readLine(); line != null; line = requests.readLine()) {
      String[] f = line.split("\t", -1);
      String main = new String(unb64(f[0]), StandardCharsets.UTF_8);
      byte[] input = unb64(f[1]);
      String[] args = new String[f.length - 2];
      for (int i = 2; i < f.length; i++) args[i - 2] = new String(unb64(f[i]), StandardCharsets.UTF_8);
      RunOutput out = new RunOutput();
      RunOutput err = new RunOutput();
      PrintStream toolOut = new PrintStream(out, true, StandardCharsets.UTF_8);
      PrintStream toolErr = new PrintStream(err, true, StandardCharsets.UTF_8);
      int status = 0;
      exited = null;
      inHooks = false;
      System.setIn(new ByteArrayInputStream(input));
      System.setOut(toolOut);
      System.setErr(toolErr);
      try {
        Class.forName(main).getMethod("main", String[].class).invoke(null, (Object) args);
      } catch (InvocationTargetException e) {
        if (!(e.getCause() instanceof ToolExit)) {
          e.getCause().printStackTrace(toolErr);
          status = 1;
        }
      } catch (Throwable t) {
        t.printStackTrace(toolErr);
        status = 1;
      } finally {
        if (exited != null) status = exited;
        inHooks = true;
        List<Runnable> added;
        synchronized (hooks) {
          added = new ArrayList<>(hooks);
          hooks.clear();
        }
        for (Runnable hook : added) {
          try {
            hook.run();
          } catch (Throwable t) {
            t.printStackTrace(toolErr);
          }
        }
        toolOut.flush();
        toolErr.flush();
        System.setIn(serverIn);
        System.setOut(answers);
        System.setErr(serverErr);
      }
      answers.println(status + "\t" + b64(out.bytes.toByteArray()) + "\t" + b64(err.bytes.toByteArray()));
      answers.flush();
    }
  }
}
