/**
 * Preloaded by tools/run-tests.mjs into every test file: uvu 0.5 swallows an error thrown by a
 * `test.before` / `test.after` hook (its runner returns from a `finally`), so a file whose set-up
 * failed shows "(0 / N)" and nothing else. This prints the hook's error before uvu drops it.
 */
import { test } from 'uvu';

for (const kind of ['before', 'after']) {
  const original = test[kind];
  const wrapped = (fn) => original(async (state) => {
    try {
      await fn(state);
    } catch (err) {
      console.error(`uvu: the ${kind} hook failed:`, err);
      throw err;
    }
  });
  wrapped.each = original.each;
  test[kind] = wrapped;
}
