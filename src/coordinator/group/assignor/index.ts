/**
 * The server-side assignors a consumer group may use (group.consumer.assignors; the first is the
 * default). Kafka lists them by class name; both the class names and the short names are accepted.
 */
import type { PartitionAssignor } from './types.js';
import { RangeAssignor } from './range.js';
import { UniformAssignor } from './uniform.js';

export * from './types.js';
export { RangeAssignor } from './range.js';
export { UniformAssignor } from './uniform.js';

const BY_NAME: Record<string, () => PartitionAssignor> = {
  uniform: () => new UniformAssignor(),
  range: () => new RangeAssignor(),
  'org.apache.kafka.coordinator.group.assignor.UniformAssignor': () => new UniformAssignor(),
  'org.apache.kafka.coordinator.group.assignor.RangeAssignor': () => new RangeAssignor(),
};

/** The assignors named in group.consumer.assignors, in order; unknown names throw. */
export function assignorsFrom(names: string[]): PartitionAssignor[] {
  return names.map((n) => n.trim()).filter((n) => n !== '').map((n) => {
    const make = BY_NAME[n];
    if (!make) throw new Error(`group.consumer.assignors: unknown assignor ${n} (known: uniform, range)`);
    return make();
  });
}
