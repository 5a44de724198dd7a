import { Alert, Anchor, Group, Stack, Table, Title } from '@mantine/core';
import { useQuery } from 'urql';
import { graphql } from '../gql';
import { formatCount, formatMoney, formatRate } from '../lib/format';
import { navigate } from '../lib/router';
import { useSession } from '../session';
import { LazyChart } from './LazyChart';
import { Problem } from './Problem';
import { useRange } from './Range';
import { Stat } from './Stat';

const DashboardQuery = graphql(`
  query Dashboard($shop: String, $from: Time, $to: Time) {
    shopStats(shopNumber: $shop, from: $from, to: $to) {
      shopNumber templates issuedCount usedCount discountTotal lockedCount expiredCount refundedCount
      daily { date issued used discount }
      topByIssued { templateId templateName issuedCount usedCount redeemRate discountTotal }
    }
    notStarted: couponTemplates(first: 1, filter: { status: NOT_STARTED, shopNumber: $shop }) { totalCount }
    active: couponTemplates(first: 1, filter: { status: ACTIVE, shopNumber: $shop }) { totalCount }
    ended: couponTemplates(first: 1, filter: { status: ENDED, shopNumber: $shop }) { totalCount }
  }
`);

/** The shop's numbers over a range of server days. */
export function Dashboard() {
  const { shop, role, timeZone } = useSession();
  const [range, rangeControl] = useRange();
  const [{ data, error, fetching }] = useQuery({
    query: DashboardQuery,
    variables: { shop, from: range.from, to: range.to },
    pause: !shop,
  });
  if (!shop) return <Alert title="Pick a shop">{role === 'PLATFORM' ? 'Type a shop number in the header to see its numbers.' : 'This token names no shop.'}</Alert>;
  const s = data?.shopStats;
  const rate = s && s.issuedCount > 0 ? s.usedCount / s.issuedCount : 0;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>Shop {shop}: {range.firstDay} to {range.lastDay}</Title>
        {rangeControl}
      </Group>
      <Problem error={error} />
      {s && (
        <>
          <Group aria-label="Templates by status" role="group">
            <Stat name="templates" label="Templates" value={formatCount(s.templates)} />
            <Stat name="notStarted" label="Not started" value={formatCount(data.notStarted.totalCount)} />
            <Stat name="active" label="Active" value={formatCount(data.active.totalCount)} />
            <Stat name="ended" label="Ended" value={formatCount(data.ended.totalCount)} />
          </Group>
          <Group aria-label="Funnel" role="group" data-ready={fetching ? undefined : 'true'}>
            <Stat name="issued" label="Issued" value={formatCount(s.issuedCount)} />
            <Stat name="used" label="Used" value={formatCount(s.usedCount)} />
            <Stat name="redeemRate" label="Redeem rate" value={formatRate(rate)} />
            <Stat name="discountTotal" label="Discount given" value={formatMoney(s.discountTotal)} />
            <Stat name="locked" label="Locked now" value={formatCount(s.lockedCount)} />
            <Stat name="expired" label="Expired" value={formatCount(s.expiredCount)} />
            <Stat name="refunded" label="Refunded" value={formatCount(s.refundedCount)} />
          </Group>
          <Title order={3}>Issued and used per day ({timeZone})</Title>
          <LazyChart days={s.daily} title="Issued and used per day" />
          <Title order={3}>Top 10 by issued</Title>
          <Table striped>
            <Table.Thead>
              <Table.Tr><Table.Th>Template</Table.Th><Table.Th>Issued</Table.Th><Table.Th>Used</Table.Th><Table.Th>Redeem rate</Table.Th><Table.Th>Discount</Table.Th></Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {s.topByIssued.map((t) => (
                <Table.Tr key={t.templateId}>
                  <Table.Td><Anchor href={`/admin/templates/${t.templateId}`} onClick={(e) => { e.preventDefault(); navigate(`/templates/${t.templateId}`); }}>{t.templateName}</Anchor></Table.Td>
                  <Table.Td>{formatCount(t.issuedCount)}</Table.Td>
                  <Table.Td>{formatCount(t.usedCount)}</Table.Td>
                  <Table.Td>{formatRate(t.redeemRate)}</Table.Td>
                  <Table.Td>{formatMoney(t.discountTotal)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </>
      )}
    </Stack>
  );
}
