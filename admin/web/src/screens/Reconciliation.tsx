import { Alert, Button, Group, List, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from 'urql';
import { graphql } from '../gql';
import { formatCount, formatTime } from '../lib/format';
import { useSession } from '../session';
import { Problem } from './Problem';

const ReconciliationQuery = graphql(`
  query Reconciliation($id: ID!) {
    couponTemplate(id: $id) { id name }
    reconciliation(templateId: $id) {
      templateId totalStock redisStock dbStock issued pending failed balanced drift redisChecked checkedAt
    }
  }
`);

/** Whether the template's books balance: the stores' stocks and counts, and each equation that does not hold. */
export function Reconciliation({ id }: { id: string }) {
  const { timeZone } = useSession();
  const [{ data, error, fetching }, refetch] = useQuery({ query: ReconciliationQuery, variables: { id }, requestPolicy: 'network-only' });
  const r = data?.reconciliation;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Reconciliation{data?.couponTemplate ? `: ${data.couponTemplate.name}` : ''}</Title>
        <Button variant="default" loading={fetching} onClick={() => refetch({ requestPolicy: 'network-only' })}>Check again</Button>
      </Group>
      <Problem error={error} />
      {r && (
        <>
          {r.balanced ? (
            <Alert color="teal" title="Balanced" data-balanced="true">
              Every equation holds{r.redisChecked ? ', Redis included' : ''}. Checked {formatTime(r.checkedAt, timeZone)}.
            </Alert>
          ) : (
            <Alert color="red" title="Not balanced" data-balanced="false" role="alert">
              <Text>These equations do not hold:</Text>
              <List data-list="drift">{r.drift.map((d) => <List.Item key={d}>{d}</List.Item>)}</List>
            </Alert>
          )}
          {!r.redisChecked && (
            <Alert color="grape" title="Redis not checked" data-redis-checked="false">
              The outbox is busy (a sale in full swing): the Redis equation was skipped; the result speaks for MySQL and the totals only.
            </Alert>
          )}
          <Table>
            <Table.Tbody>
              <Table.Tr><Table.Th scope="row">Total stock</Table.Th><Table.Td data-stat="totalStock">{formatCount(r.totalStock)}</Table.Td></Table.Tr>
              <Table.Tr><Table.Th scope="row">Stock in Redis</Table.Th><Table.Td data-stat="redisStock">{r.redisStock == null ? 'not read' : formatCount(r.redisStock)}</Table.Td></Table.Tr>
              <Table.Tr><Table.Th scope="row">Stock in MySQL</Table.Th><Table.Td data-stat="dbStock">{formatCount(r.dbStock)}</Table.Td></Table.Tr>
              <Table.Tr><Table.Th scope="row">Issued</Table.Th><Table.Td data-stat="issued">{formatCount(r.issued)}</Table.Td></Table.Tr>
              <Table.Tr><Table.Th scope="row">Pending</Table.Th><Table.Td data-stat="pending">{formatCount(r.pending)}</Table.Td></Table.Tr>
              <Table.Tr><Table.Th scope="row">Failed</Table.Th><Table.Td data-stat="failed">{formatCount(r.failed)}</Table.Td></Table.Tr>
            </Table.Tbody>
          </Table>
        </>
      )}
    </Stack>
  );
}
