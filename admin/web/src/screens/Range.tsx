import { useMemo, useState } from 'react';
import { SegmentedControl } from '@mantine/core';
import { lastDays, type Range } from '../lib/format';
import { useSession } from '../session';

const presets = [
  { value: '1', label: 'Today' },
  { value: '7', label: '7 days' },
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
];

/** A range of server days (settings.statsTimeZone) chosen from presets, capped at statsMaxDays. */
export function useRange(initial = '7'): [Range, JSX.Element] {
  const { timeZone, statsMaxDays } = useSession();
  const [days, setDays] = useState(initial);
  const range = useMemo(() => lastDays(Math.min(Number(days), statsMaxDays), timeZone), [days, timeZone, statsMaxDays]);
  const control = (
    <SegmentedControl aria-label="Range" value={days} onChange={setDays}
      data={presets.filter((p) => Number(p.value) <= statsMaxDays)} />
  );
  return [range, control];
}
