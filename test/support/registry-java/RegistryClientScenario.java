// A Java Confluent-API Schema Registry client against Samsa, driven by
// test/schema-registry/registry-java.test.ts and run with the single-file source launcher:
//
//   java -cp <jars of pom.xml beside this file> RegistryClientScenario.java BOOTSTRAP REGISTRY_URL TOPIC RECORD_JSON
//
// The client is Spring Cloud Stream's ConfluentSchemaRegistryClient (RestTemplate on Confluent's
// REST API; Confluent's own Java client is not on Maven Central). The program registers an Avro
// schema, a compatible evolution and an incompatible one; writes RECORD_JSON with Apache Avro
// in Confluent's wire format (magic 0, the writer schema's id as a 4-byte big-endian int, Avro
// binary), produces it with the Kafka Java client, consumes it back, fetches the writer schema
// by the id in the bytes through the registry client and decodes the record. It prints one JSON
// line with everything it saw on stdout; the clients' logs go to stderr.
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.springframework.cloud.stream.schema.registry.SchemaReference;
import org.springframework.cloud.stream.schema.registry.SchemaRegistrationResponse;
import org.springframework.cloud.stream.schema.registry.client.ConfluentSchemaRegistryClient;
import org.springframework.web.client.HttpStatusCodeException;

public class RegistryClientScenario {
    static final String SUBJECT = "java-payments-value";
    static final ObjectMapper JSON = new ObjectMapper();

    // v1; v2 adds a field with a default (BACKWARD compatible: a v2 reader fills it in for v1
    // data); "bad" turns the string id into a long, which a reader of it cannot read from v1 data.
    static final String V1 = """
        {"type": "record", "name": "Payment", "namespace": "samsa.test.java", "fields": [
          {"name": "id", "type": "string"},
          {"name": "amount", "type": "double"},
          {"name": "paidAt", "type": {"type": "long", "logicalType": "timestamp-millis"}},
          {"name": "memo", "type": ["null", "string"], "default": null}
        ]}""";
    static final String V2 = """
        {"type": "record", "name": "Payment", "namespace": "samsa.test.java", "fields": [
          {"name": "id", "type": "string"},
          {"name": "amount", "type": "double"},
          {"name": "paidAt", "type": {"type": "long", "logicalType": "timestamp-millis"}},
          {"name": "memo", "type": ["null", "string"], "default": null},
          {"name": "currency", "type": "string", "default": "EUR"}
        ]}""";
    static final String BAD = """
        {"type": "record", "name": "Payment", "namespace": "samsa.test.java", "fields": [
          {"name": "id", "type": "long"},
          {"name": "amount", "type": "double"},
          {"name": "paidAt", "type": {"type": "long", "logicalType": "timestamp-millis"}},
          {"name": "memo", "type": ["null", "string"], "default": null}
        ]}""";

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String registryUrl = args[1];
        String topic = args[2];
        @SuppressWarnings("unchecked")
        Map<String, Object> given = JSON.readValue(args[3], Map.class);
        Map<String, Object> out = new LinkedHashMap<>();

        ConfluentSchemaRegistryClient registry = new ConfluentSchemaRegistryClient();
        registry.setEndpoint(registryUrl);

        // (1) and (2): register v1, then the compatible v2; (1') v1 again answers the same id.
        SchemaRegistrationResponse r1 = registry.register(SUBJECT, "avro", V1);
        out.put("v1", registration(r1));
        SchemaRegistrationResponse r2 = registry.register(SUBJECT, "avro", V2);
        out.put("v2", registration(r2));
        out.put("v1Again", registry.register(SUBJECT, "avro", V1).getId());

        // (3) the incompatible one: the client wraps the server's HTTP error in a RuntimeException.
        Map<String, Object> refused = new LinkedHashMap<>();
        try {
            SchemaRegistrationResponse r = registry.register(SUBJECT, "avro", BAD);
            refused.put("registeredId", r.getId());
        } catch (RuntimeException e) {
            refused.put("message", e.getMessage());
            if (e.getCause() instanceof HttpStatusCodeException http) {
                refused.put("status", http.getStatusCode().value());
                refused.put("body", JSON.readValue(http.getResponseBodyAsString(), Map.class));
            }
        }
        out.put("refused", refused);

        // (4) a v2 record in Confluent's wire format, through Kafka and back.
        Schema v2 = new Schema.Parser().parse(V2);
        GenericRecord written = new GenericData.Record(v2);
        written.put("id", given.get("id"));
        written.put("amount", ((Number) given.get("amount")).doubleValue());
        written.put("paidAt", ((Number) given.get("paidAt")).longValue());
        written.put("memo", given.get("memo"));
        written.put("currency", given.get("currency"));
        byte[] value = confluentWire(r2.getId(), v2, written);

        createTopic(bootstrap, topic);
        out.put("produced", produce(bootstrap, topic, value));
        byte[] read = consumeOne(bootstrap, topic);
        out.put("sameBytes", Arrays.equals(value, read));

        ByteBuffer buf = ByteBuffer.wrap(read);
        int magic = buf.get();
        int id = buf.getInt(); // big-endian, ByteBuffer's default order
        out.put("wire", Map.of("magic", magic, "id", id, "length", read.length));

        // The writer schema by the id in the bytes, through the registry client (GET /schemas/ids/{id}).
        String writerText = registry.fetch(id);
        Schema writer = new Schema.Parser().parse(writerText);
        out.put("writerSchemaEqualsV2", writer.equals(v2));
        out.put("decoded", plain(decode(read, writer, writer)));

        // A reader still on v1 (fetched by subject and version, GET /subjects/{s}/versions/1)
        // reads the same bytes through Avro's schema resolution: the new field is skipped.
        Schema v1 = new Schema.Parser().parse(registry.fetch(new SchemaReference(SUBJECT, 1, "avro")));
        out.put("decodedAsV1", plain(decode(read, writer, v1)));

        System.out.println(JSON.writeValueAsString(out));
    }

    static Map<String, Object> registration(SchemaRegistrationResponse r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", r.getId());
        m.put("subject", r.getSchemaReference().getSubject());
        m.put("version", r.getSchemaReference().getVersion());
        return m;
    }

    static byte[] confluentWire(int schemaId, Schema schema, GenericRecord record) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        bytes.write(0);
        bytes.write(ByteBuffer.allocate(4).putInt(schemaId).array());
        BinaryEncoder enc = EncoderFactory.get().binaryEncoder(bytes, null);
        new GenericDatumWriter<GenericRecord>(schema).write(record, enc);
        enc.flush();
        return bytes.toByteArray();
    }

    static GenericRecord decode(byte[] wire, Schema writer, Schema reader) throws Exception {
        GenericDatumReader<GenericRecord> datumReader = new GenericDatumReader<>(writer, reader);
        return datumReader.read(null, DecoderFactory.get().binaryDecoder(wire, 5, wire.length - 5, null));
    }

    /** A decoded record's fields as plain JSON values (Avro's Utf8 as strings). */
    static Map<String, Object> plain(GenericRecord r) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (Schema.Field f : r.getSchema().getFields()) {
            Object v = r.get(f.name());
            m.put(f.name(), v instanceof CharSequence cs ? cs.toString() : v);
        }
        return m;
    }

    static void createTopic(String bootstrap, String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap, "request.timeout.ms", 15000, "default.api.timeout.ms", 30000))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) throw e;
        }
    }

    static Map<String, Object> produce(String bootstrap, String topic, byte[] value) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("acks", "all");
        p.put("enable.idempotence", "true");
        p.put("max.block.ms", "30000");
        p.put("delivery.timeout.ms", "30000");
        p.put("request.timeout.ms", "15000");
        p.put("key.serializer", ByteArraySerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            RecordMetadata md = producer.send(new ProducerRecord<>(topic, "p-java-1".getBytes(), value)).get(30, TimeUnit.SECONDS);
            return Map.of("partition", md.partition(), "offset", md.offset());
        }
    }

    static byte[] consumeOne(String bootstrap, String topic) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("enable.auto.commit", "false");
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) return r.value();
            }
        }
        throw new IllegalStateException("no record read back from " + topic + " within 30 s");
    }
}
