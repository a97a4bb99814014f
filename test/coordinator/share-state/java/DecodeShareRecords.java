import java.nio.ByteBuffer;
import java.util.HexFormat;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.share.ShareCoordinatorRecordSerde;

/**
 * Decodes __share_group_state records with Kafka's own ShareCoordinatorRecordSerde: one argument
 * per record, "keyHex:valueHex" (nothing after ':' for a tombstone). Prints, per record, the
 * decoded key and value (Kafka's toString) and whether Kafka serialises them to the same bytes.
 */
public class DecodeShareRecords {
  public static void main(String[] args) {
    ShareCoordinatorRecordSerde serde = new ShareCoordinatorRecordSerde();
    HexFormat hex = HexFormat.of();
    for (String arg : args) {
      String[] kv = arg.split(":", -1);
      byte[] key = hex.parseHex(kv[0]);
      byte[] value = kv[1].isEmpty() ? null : hex.parseHex(kv[1]);
      CoordinatorRecord r = serde.deserialize(ByteBuffer.wrap(key), value == null ? null : ByteBuffer.wrap(value));
      byte[] key2 = serde.serializeKey(r);
      byte[] value2 = serde.serializeValue(r);
      boolean same = java.util.Arrays.equals(key, key2) && java.util.Arrays.equals(value, value2);
      System.out.println("key=" + r.key() + " value=" + (r.value() == null ? "null" : r.value().message() + " v" + r.value().version()) + " same=" + same);
    }
  }
}
