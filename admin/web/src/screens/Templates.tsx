import { useState } from 'react';
import { Alert, Anchor, Badge, Button, Group, Select, Stack, Table, TextInput, Title } from '@mantine/core';
import { useQuery } from 'urql';
import { graphql } from '../gql';
import type { DiscountType, TemplateStatus } from '../gql/graphql';
import { formatCount, formatMoney, formatRate, formatRateOff, formatTime } from '../lib/format';
import { navigate } from '../lib/router';
import { useSession } from '../session';
import { Problem } from './Problem';

const TemplatesQuery = graphql(`
  query Templates($first: Int!, $after: String, $filter: CouponTemplateFilter) {
    couponTemplates(first: $first, after: $after, filter: $filter) {
      totalCount
      pageInfo { hasNextPage endCursor }
      edges {
        cursor
        node {
          id name type status stock totalStock validStartTime validEndTime
          discountAmount discountRate thresholdAmount
          stats { issuedCount usedCount redeemRate discountTotal }
        }
      }
    }
  }
`);

const pageSize = 20;

export const statusColor: Record<string, string> = { NOT_STARTED: 'gray', ACTIVE: 'teal', ENDED: 'red' };

/** The shop's templates, newest first, filtered, a page at a time. */
export function Templates() {
  const { shop, timeZone } = useSession();
  const [status, setStatus] = useState<string | null>(null);
  const [type, setType] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [pages, setPages] = useState<(string | null)[]>([null]);
  const filter = {
    shopNumber: shop,
    status: (status as TemplateStatus) || null,
    type: (type as DiscountType) || null,
    nameContains: name.trim() || null,
  };
  const reset = () => setPages([null]);
  if (!shop) return <Alert title="Pick a shop">Type a shop number in the header.</Alert>;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Templates</Title>
        <Button onClick={() => navigate('/templates/new')}>New template</Button>
      </Group>
      <Group>
        <Select label="Status" clearable value={status} onChange={(v) => { setStatus(v); reset(); }}
          data={['NOT_STARTED', 'ACTIVE', 'ENDED']} />
        <Select label="Type" clearable value={type} onChange={(v) => { setType(v); reset(); }}
          data={['FIXED_OFF', 'THRESHOLD_OFF', 'PERCENT_OFF']} />
        <TextInput label="Name contains" value={name} onChange={(e) => { setName(e.currentTarget.value); reset(); }} />
      </Group>
      <Table striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Name</Table.Th><Table.Th>Status</Table.Th><Table.Th>Offer</Table.Th><Table.Th>Stock</Table.Th>
            <Table.Th>Issued</Table.Th><Table.Th>Used</Table.Th><Table.Th>Redeem rate</Table.Th><Table.Th>Valid</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {pages.map((after, i) => (
            <Page key={after ?? ''} after={after} filter={filter} timeZone={timeZone}
              onMore={i === pages.length - 1 ? (c) => setPages([...pages, c]) : undefined} />
          ))}
        </Table.Tbody>
      </Table>
    </Stack>
  );
}

type Filter = { shopNumber: string | null; status: TemplateStatus | null; type: DiscountType | null; nameContains: string | null };

function Page({ after, filter, timeZone, onMore }: { after: string | null; filter: Filter; timeZone: string; onMore?: (cursor: string) => void }) {
  const [{ data, error }] = useQuery({ query: TemplatesQuery, variables: { first: pageSize, after, filter } });
  const c = data?.couponTemplates;
  return (
    <>
      {error && <Table.Tr><Table.Td colSpan={8}><Problem error={error} /></Table.Td></Table.Tr>}
      {c?.edges.map(({ node: t }) => (
        <Table.Tr key={t.id} data-template-id={t.id}>
          <Table.Td><Anchor href={`/admin/templates/${t.id}`} onClick={(e) => { e.preventDefault(); navigate(`/templates/${t.id}`); }}>{t.name}</Anchor></Table.Td>
          <Table.Td><Badge color={statusColor[t.status]} variant="outline">{t.status}</Badge></Table.Td>
          <Table.Td>{offer(t)}</Table.Td>
          <Table.Td>{formatCount(t.stock)} / {formatCount(t.totalStock)}</Table.Td>
          <Table.Td>{t.stats ? formatCount(t.stats.issuedCount) : '—'}</Table.Td>
          <Table.Td>{t.stats ? formatCount(t.stats.usedCount) : '—'}</Table.Td>
          <Table.Td>{t.stats ? formatRate(t.stats.redeemRate) : '—'}</Table.Td>
          <Table.Td>{formatTime(t.validStartTime, timeZone)} – {formatTime(t.validEndTime, timeZone)}</Table.Td>
        </Table.Tr>
      ))}
      {c && onMore && (
        <Table.Tr>
          <Table.Td colSpan={8}>
            {c.pageInfo.hasNextPage && c.pageInfo.endCursor
              ? <Button variant="default" onClick={() => onMore(c.pageInfo.endCursor!)}>Load more (of {formatCount(c.totalCount)})</Button>
              : `${formatCount(c.totalCount)} templates`}
          </Table.Td>
        </Table.Tr>
      )}
    </>
  );
}

/** The one-line summary of a template's offer. */
export function offer(t: { type: string; discountAmount?: string | null; discountRate?: string | null; thresholdAmount?: string | null }): string {
  switch (t.type) {
    case 'FIXED_OFF': return `${formatMoney(t.discountAmount)} off`;
    case 'THRESHOLD_OFF': return `${formatMoney(t.discountAmount)} off ${formatMoney(t.thresholdAmount)} or more`;
    case 'PERCENT_OFF': return formatRateOff(t.discountRate);
    default: return t.type;
  }
}
