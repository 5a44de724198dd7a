import { lazy, Suspense } from 'react';
import { Loader } from '@mantine/core';
import type { Day } from './DailyChart';

const DailyChart = lazy(() => import('./DailyChart'));

/** The daily chart, its code fetched when first shown. */
export function LazyChart({ days, title }: { days: readonly Day[]; title: string }) {
  return (
    <Suspense fallback={<Loader size="sm" aria-label="Loading chart" />}>
      <DailyChart days={days} title={title} />
    </Suspense>
  );
}
