import { describe, expect, it } from 'vitest';
import { addDays, dayIn, dayStart, formatMoney, formatRateOff, formatTime, lastDays, zonedInstant } from './format';

describe('money stays a string', () => {
  it('groups and pads without floating point', () => {
    expect(formatMoney('1234567.5')).toBe('1,234,567.50');
    expect(formatMoney('0.1')).toBe('0.10');
    expect(formatMoney('12.50')).toBe('12.50');
    expect(formatMoney('-3')).toBe('-3.00');
    // a float would print 90071992547409.92 as ...09.92 only by luck; 17 digits would round
    expect(formatMoney('12345678901234567.89')).toBe('12,345,678,901,234,567.89');
    expect(formatMoney(null)).toBe('—');
  });
  it('shows a discount rate as the share taken off, exactly', () => {
    expect(formatRateOff('0.85')).toBe('15% off');
    expect(formatRateOff('0.8765')).toBe('12.35% off');
    expect(formatRateOff('0.5')).toBe('50% off');
  });
});

describe('days are the server time zone', () => {
  const instant = new Date('2026-03-01T17:30:00Z');
  it('puts an instant on the zone day', () => {
    expect(dayIn(instant, 'Asia/Shanghai')).toBe('2026-03-02');
    expect(dayIn(instant, 'America/Los_Angeles')).toBe('2026-03-01');
    expect(formatTime('2026-03-01T17:30:00Z', 'Asia/Shanghai')).toBe('2026-03-02 01:30');
  });
  it('starts a day at the zone midnight, also on DST days', () => {
    expect(dayStart('2026-03-02', 'Asia/Shanghai')).toBe('2026-03-01T16:00:00Z');
    expect(dayStart('2026-03-08', 'America/New_York')).toBe('2026-03-08T05:00:00Z'); // spring forward that day
    expect(dayStart('2026-03-09', 'America/New_York')).toBe('2026-03-09T04:00:00Z');
    expect(dayStart('2026-12-04', 'UTC')).toBe('2026-12-04T00:00:00Z');
  });
  it('gives [from, to) of the last days ending today in the zone', () => {
    const r = lastDays(7, 'Asia/Shanghai', instant);
    expect(r).toEqual({ firstDay: '2026-02-24', lastDay: '2026-03-02', from: '2026-02-23T16:00:00Z', to: '2026-03-02T16:00:00Z' });
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
  });
  it('reads a wall-clock time in the zone', () => {
    expect(zonedInstant('2026-03-02T09:15', 'Asia/Shanghai')).toBe('2026-03-02T01:15:00Z');
    expect(zonedInstant('2026-03-08T12:00', 'America/New_York')).toBe('2026-03-08T16:00:00Z');
    expect(zonedInstant('nonsense', 'UTC')).toBeNull();
  });
});
