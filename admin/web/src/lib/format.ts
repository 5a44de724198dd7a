// Display of the API's values. Ids and money are strings end to end: a 64-bit id or a Decimal is
// never turned into a JavaScript number, which would round it.

/** "1234567.5" → "1,234,567.50": grouping and two decimals by string arithmetic. */
export function formatMoney(amount: string | null | undefined): string {
  if (amount == null || amount === '') return '—';
  const m = /^(-?)(\d+)(?:\.(\d*))?$/.exec(amount.trim());
  if (!m) return amount;
  const [, sign, int, frac = ''] = m;
  const grouped = int.replace(/^0+(?=\d)/, '').replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${sign}${grouped}.${(frac + '00').slice(0, 2)}`;
}

/** A rate in [0, 1] as a percentage with one decimal. */
export function formatRate(rate: number): string {
  return `${(rate * 100).toFixed(1)}%`;
}

/** An integer count with grouping. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** An RFC 3339 time shown in the given IANA zone, "2026-12-04 09:30". */
export function formatTime(iso: string | null | undefined, timeZone: string): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = parts(d, timeZone);
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
}

function parts(d: Date, timeZone: string): Record<string, string> {
  const f = new Intl.DateTimeFormat('en-CA', {
    timeZone, year: 'numeric', month: '2-digit', day: '2-digit',
    hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
  });
  const out: Record<string, string> = {};
  for (const p of f.formatToParts(d)) out[p.type] = p.value;
  return out;
}

/** The calendar day (YYYY-MM-DD) the instant falls on in the zone. */
export function dayIn(d: Date, timeZone: string): string {
  const p = parts(d, timeZone);
  return `${p.year}-${p.month}-${p.day}`;
}

/** The instant a day (YYYY-MM-DD) starts in the zone, as RFC 3339 UTC. */
export function dayStart(day: string, timeZone: string): string {
  const [y, m, d] = day.split('-').map(Number);
  let t = Date.UTC(y, m - 1, d);
  for (let i = 0; i < 3; i++) {
    const p = parts(new Date(t), timeZone);
    const shown = Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute, +p.second);
    const want = Date.UTC(y, m - 1, d);
    if (shown === want) break;
    t += want - shown;
  }
  return new Date(t).toISOString().replace('.000Z', 'Z');
}

/** The day n days after day (n may be negative). */
export function addDays(day: string, n: number): string {
  const [y, m, d] = day.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d + n)).toISOString().slice(0, 10);
}

export type Range = { from: string; to: string; firstDay: string; lastDay: string };

/** The window [from, to) of the last `days` server days ending today (in the zone). */
export function lastDays(days: number, timeZone: string, now: Date = new Date()): Range {
  const lastDay = dayIn(now, timeZone);
  const firstDay = addDays(lastDay, 1 - days);
  return { from: dayStart(firstDay, timeZone), to: dayStart(addDays(lastDay, 1), timeZone), firstDay, lastDay };
}

/** A wall-clock time "YYYY-MM-DDTHH:mm" in the zone, as RFC 3339 UTC (null when malformed). */
export function zonedInstant(local: string, timeZone: string): string | null {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!m) return null;
  const start = Date.parse(dayStart(m[1], timeZone));
  // Within one day the offset is that of the day's start except across a DST change; correct once.
  let t = start + (Number(m[2]) * 60 + Number(m[3])) * 60000;
  const shown = formatTime(new Date(t).toISOString(), timeZone);
  const want = `${m[1]} ${m[2]}:${m[3]}`;
  if (shown !== want) {
    const [d, hm] = shown.split(' ');
    const [h, mi] = hm.split(':').map(Number);
    const dayDiff = (Date.parse(d) - Date.parse(m[1])) / 60000;
    t -= (dayDiff + h * 60 + mi - Number(m[2]) * 60 - Number(m[3])) * 60000;
  }
  return new Date(t).toISOString().replace('.000Z', 'Z');
}

/** A discountRate (the share paid, "0.85") as the share taken off ("15% off"). */
export function formatRateOff(rate: string | null | undefined): string {
  if (!rate) return '—';
  const m = /^0?\.(\d{1,4})$/.exec(rate.trim());
  if (!m) return rate;
  const paid = Number(m[1].padEnd(4, '0')); // ten-thousandths, exact
  const off = 10000 - paid;
  return `${(off / 100).toString()}% off`;
}
