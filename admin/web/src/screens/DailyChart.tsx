// Loaded only where a chart is shown (React.lazy): recharts stays out of the initial bundle.
import '@mantine/charts/styles.css';
import { BarChart } from '@mantine/charts';

export type Day = { date: string; issued: number; used: number };

export default function DailyChart({ days, title }: { days: readonly Day[]; title: string }) {
  return (
    <figure style={{ margin: 0 }} aria-label={title}>
      <BarChart h={220} data={days as Day[]} dataKey="date" withLegend
        series={[{ name: 'issued', color: 'blue.8' }, { name: 'used', color: 'teal.9' }]} />
    </figure>
  );
}
