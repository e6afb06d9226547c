/** Go durations: the one writer and the one reader (Go's time.ParseDuration syntax). */
import { formatGoDuration, parseGoDuration } from '../../src/policy/go-duration';

describe('Go durations', () => {
  test.each([
    [0, '0s'], [45, '45s'], [90, '1m30s'], [1800, '30m'], [5400, '1h30m'], [3661, '1h1m1s'], [7776000, '2160h'],
  ])('%d s is written %s, and read back', (seconds, text) => {
    expect(formatGoDuration(seconds)).toBe(text);
    expect(parseGoDuration(text)).toBe(seconds);
  });

  test('only whole seconds >= 0 are written', () => {
    expect(() => formatGoDuration(1.5)).toThrow(/whole number/);
    expect(() => formatGoDuration(-1)).toThrow(/whole number/);
  });

  test.each([
    ['1.5h', 5400], ['200ms', 0.2], ['1h30m', 5400], ['-1s', -1], ['+2m', 120], ['0', 0], ['-0', 0], ['1µs', 1e-6], ['1μs', 1e-6], ['.5s', 0.5],
  ])('%s is read as time.ParseDuration reads it', (text, seconds) => expect(parseGoDuration(text)).toBeCloseTo(seconds, 12));

  test.each(['', '10', 'm', '1d', '1h 30m', 'soon', '-', '1s-'])('%j is not a duration', (text) => expect(parseGoDuration(text)).toBeUndefined());
});
