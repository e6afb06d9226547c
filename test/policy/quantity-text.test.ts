/** Quantities as people read them: the units they wrote, one unit family per comparison. */
import { describeQuantities, describeQuantity, describeResourcesCompared, formatQuantity, formatResources, parseQuantity } from '../../src/policy';

const q = (s: string) => parseQuantity(s);

describe('describeQuantity: in the units the user wrote', () => {
  test('one written quantity prints as written (its largest exact unit)', () => {
    expect(['6G', '4296Mi', '8Gi', '500M', '2.5', '100m'].map((s) => describeQuantity(q(s), s.endsWith('m') || !/[A-Z]/.test(s) ? 'cpu' : 'memory')))
      .toEqual(['6G', '4296Mi', '8Gi', '500M', '2.5', '0.1']);
  });

  test('a sum of decimal and binary amounts prints as its two parts, not as KiB', () => {
    expect(formatQuantity(q('8G') + q('200Mi'), 'memory')).toBe('8017300Ki'); // the manifest notation stays exact
    expect(describeQuantity(q('8G') + q('200Mi'), 'memory')).toBe('8G + 200Mi');
    expect(describeQuantity(q('20Gi') + q('1G'), 'memory')).toBe('1G + 20Gi');
    expect(describeQuantity(3n * (q('1G') + q('100Mi')), 'memory')).toBe('3G + 300Mi');
    expect(formatResources(new Map([['cpu', q('5')], ['memory', q('8G') + q('200Mi')]]))).toBe('cpu 5, memory 8G + 200Mi');
  });

  test('KiB only when nothing coarser is exact (the user wrote Ki)', () => {
    expect(describeQuantity(q('3Ki'), 'memory')).toBe('3Ki');
    expect(describeQuantity(q('6G') - q('4296Mi'), 'memory')).toBe('1460271Ki');
  });
});

describe('describeQuantities: figures compared on one line share a unit family', () => {
  test('binary when any figure is binary: needs 4296Mi of a 6G quota', () => {
    expect(describeQuantities([q('4296Mi'), q('6G') - q('4296Mi'), q('6G')], 'memory')).toEqual(['4296Mi', '1426.05Mi', '5722.05Mi']);
  });

  test('exact figures keep their largest unit; approximations use the smallest unit in use', () => {
    expect(describeQuantities([q('6344Mi'), q('8Gi'), 0n], 'memory')).toEqual(['6344Mi', '8Gi', '0']);
    expect(describeQuantities([q('8G') + q('200Mi'), q('6G')], 'memory')).toEqual(['7829.39Mi', '5722.05Mi']);
  });

  test('decimal when every figure is decimal; cpu unchanged', () => {
    expect(describeQuantities([q('8G'), q('2G'), q('6G'), q('500M')], 'memory')).toEqual(['8G', '2G', '6G', '500M']);
    expect(describeQuantities([q('1500M'), q('6G') - q('1500M'), q('6G')], 'memory')).toEqual(['1500M', '4500M', '6G']);
    expect(describeQuantities([q('2.5'), q('0.5'), q('3')], 'cpu')).toEqual(['2.5', '0.5', '3']);
  });

  test('maps compared in one message: each resource in one family across them', () => {
    const needs = new Map([['cpu', q('5')], ['memory', q('8G') + q('200Mi')]]);
    const most = new Map([['cpu', q('4')], ['memory', q('6G')]]);
    expect(describeResourcesCompared([needs, most])).toEqual(['cpu 5, memory 7829.39Mi', 'cpu 4, memory 5722.05Mi']);
  });
});

describe('parseQuantity: the suffixes as resource.Quantity reads them', () => {
  test('"E" alone is exa (10^18), not an empty exponent; "e3" and "E3" are exponents', () => {
    expect([q('1E'), q('2P'), q('1e3'), q('1E3'), q('5E-1')]).toEqual([10n ** 21n, 2n * 10n ** 18n, 10n ** 6n, 10n ** 6n, 500n]);
  });
});
