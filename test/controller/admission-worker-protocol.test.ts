// The answer a worker sends is a flat tuple: it must carry a ReviewOutcome back exactly, with each
// optional field present exactly when it was (an empty error message included).
import { ReviewOutcome } from '../../src/controller/admission-review';
import { answerOf, outcomeOf } from '../../src/controller/admission-worker-protocol';

const cases: ReviewOutcome[] = [
  { status: 200, body: '{"response":{"allowed":true}}', verdict: 'allowed', rules: [] },
  { status: 200, body: '{}', verdict: 'denied', rules: ['error rayJobShutdownAfterFinish', 'warning gangCanEverFit'] },
  { status: 200, body: '{}', verdict: 'mutated', rules: ['warning labelSyntax'] },
  { status: 400, body: '{"message":"malformed JSON"}', rules: [] },
  { status: 200, body: '{}', verdict: 'denied', rules: [], internalError: 'boom', uid: 'u-1' },
  { status: 200, body: '{}', verdict: 'denied', rules: [], internalError: '', uid: '' },
];

test.each(cases.map((c, i) => [i, c] as const))('outcome %i comes back as it went', (_i, c) => {
  const back = outcomeOf(answerOf(7, c));
  expect(back).toStrictEqual(c);
  expect(Object.keys(back).sort()).toEqual(Object.keys(c).sort());
});

test('the id travels in the answer', () => {
  expect(answerOf(42, cases[0])[0]).toBe(42);
});
