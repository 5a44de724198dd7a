import { Paper, Text } from '@mantine/core';

/** One labelled figure; data-stat names it for the end-to-end test. */
export function Stat({ label, value, name }: { label: string; value: string; name: string }) {
  return (
    <Paper withBorder p="sm" miw={140}>
      <Text size="sm">{label}</Text>
      <Text size="xl" fw={700} data-stat={name}>{value}</Text>
    </Paper>
  );
}
