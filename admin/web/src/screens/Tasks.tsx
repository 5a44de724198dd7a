import { Alert, Anchor, Badge, Stack, Table, Title } from '@mantine/core';
import { useQuery } from 'urql';
import { graphql } from '../gql';
import { formatCount, formatTime } from '../lib/format';
import { navigate } from '../lib/router';
import { useSession } from '../session';
import { Problem } from './Problem';

const TasksQuery = graphql(`
  query Tasks($shop: String) {
    couponTasks(shopNumber: $shop, first: 50) {
      totalCount
      edges { node { id name status processedRows successCount failCount createdAt completedAt template { id name } } }
    }
  }
`);

const color: Record<string, string> = { PENDING: 'gray', IN_PROGRESS: 'blue', SUCCESS: 'teal', FAILED: 'red', CANCELED: 'grape' };

/** The shop's distribution tasks, newest first. */
export function Tasks() {
  const { shop, role, timeZone } = useSession();
  const [{ data, error }] = useQuery({ query: TasksQuery, variables: { shop: role === 'PLATFORM' ? shop : null } });
  if (role === 'PLATFORM' && !shop) return <Alert title="Pick a shop">Type a shop number in the header.</Alert>;
  return (
    <Stack>
      <Title order={2}>Distribution tasks{data ? ` (${formatCount(data.couponTasks.totalCount)})` : ''}</Title>
      <Problem error={error} />
      <Table striped>
        <Table.Thead>
          <Table.Tr><Table.Th>Task</Table.Th><Table.Th>Template</Table.Th><Table.Th>Status</Table.Th><Table.Th>Rows</Table.Th><Table.Th>Issued</Table.Th><Table.Th>Failed</Table.Th><Table.Th>Created</Table.Th></Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {data?.couponTasks.edges.map(({ node: t }) => (
            <Table.Tr key={t.id}>
              <Table.Td><Anchor href={`/admin/tasks/${t.id}`} onClick={(e) => { e.preventDefault(); navigate(`/tasks/${t.id}`); }}>{t.name}</Anchor></Table.Td>
              <Table.Td>{t.template.name}</Table.Td>
              <Table.Td><Badge color={color[t.status]} variant="outline">{t.status}</Badge></Table.Td>
              <Table.Td>{formatCount(t.processedRows)}</Table.Td><Table.Td>{formatCount(t.successCount)}</Table.Td><Table.Td>{formatCount(t.failCount)}</Table.Td>
              <Table.Td>{formatTime(t.createdAt, timeZone)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}
