// A user value in a message or a key: a string as written, anything else as JSON, never "[object Object]"
// (asWritten in full, shown shortened), and the messages that print user values through it.
import { asWritten, shown } from '../../src/policy/json';
import { simulatePlan } from '../../src/policy/plan';

test('asWritten: strings as written, other values as JSON, in full', () => {
  expect(asWritten('team-a/x')).toBe('team-a/x');
  expect(asWritten({ a: 1 })).toBe('{"a":1}');
  expect(asWritten([1, 'b'])).toBe('[1,"b"]');
  expect(asWritten(7)).toBe('7');
  expect(asWritten(undefined)).toBe('undefined');
  const long = 'n'.repeat(200);
  expect(asWritten(long)).toBe(long);
});

test('asWritten never throws: a value nested too deep to print is shown as {…} or […]', () => {
  let deep: unknown = {};
  for (let i = 0; i < 100000; i++) deep = { d: deep };
  expect(asWritten(deep)).toBe('{…}');
  expect(asWritten([deep])).toBe('[…]');
});

test('shown shortens what asWritten gives past 80 characters', () => {
  const long = 'n'.repeat(200);
  expect(shown(long)).toBe(`${'n'.repeat(60)}…${'n'.repeat(12)}`);
  expect(shown({ a: 1 })).toBe('{"a":1}');
});

test("the plan's note on an arrival that is not a Ray object prints a kind that is no string as JSON", () => {
  const plan = simulatePlan({ kueueObjects: [], arrivals: [{ kind: { bad: true }, metadata: { name: 'x' } } as never], trace: false });
  expect(plan.notes.join('\n')).toMatch(/arrival 0: \{"bad":true\} is not a Ray object/);
});
