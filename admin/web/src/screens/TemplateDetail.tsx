import { useEffect, useState } from 'react';
import { Alert, Badge, Button, Group, Modal, Progress, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useMutation, useQuery } from 'urql';
import { graphql } from '../gql';
import { fieldErrors } from '../lib/errors';
import { formatCount, formatMoney, formatRate, formatTime } from '../lib/format';
import { navigate } from '../lib/router';
import { useSession } from '../session';
import { LazyChart } from './LazyChart';
import { Problem } from './Problem';
import { Stat } from './Stat';
import { offer, statusColor } from './Templates';

const DetailQuery = graphql(`
  query TemplateDetail($id: ID!) {
    couponTemplate(id: $id) {
      id name shopNumber source type target goods status stock totalStock limitPerPerson
      validStartTime validEndTime validityHours refundPolicy discountAmount discountRate thresholdAmount maxDiscountAmount createdAt
      stats {
        totalStock remainingStock issuedCount lockedCount usedCount expiredCount refundedCount discountTotal redeemRate
        issuedByOrigin { claim distribution }
        daily { date issued used discount }
      }
    }
    templateLog(templateId: $id, first: 20) {
      totalCount
      edges { cursor node { actor action at before after } }
    }
  }
`);

const IncreaseMutation = graphql(`
  mutation IncreaseStock($input: IncreaseStockInput!) {
    increaseCouponTemplateStock(input: $input) {
      template { id stock totalStock }
      userErrors { code field message }
    }
  }
`);

const TerminateMutation = graphql(`
  mutation Terminate($input: TerminateCouponTemplateInput!) {
    terminateCouponTemplate(input: $input) {
      template { id status validEndTime }
      userErrors { code field message }
    }
  }
`);

/** Polling period while a template is on sale: remaining stock and issued coupons tick. */
const liveEvery = 2000;

/** One template: funnel, daily series, live stock, stock increase and terminate (confirmed), its log. */
export function TemplateDetail({ id }: { id: string }) {
  const { timeZone } = useSession();
  const [{ data, error }, refetch] = useQuery({ query: DetailQuery, variables: { id } });
  const t = data?.couponTemplate;
  const live = t?.status === 'ACTIVE';
  useEffect(() => {
    if (!live) return;
    const h = setInterval(() => refetch({ requestPolicy: 'network-only' }), liveEvery);
    return () => clearInterval(h);
  }, [live, refetch]);
  const [dialog, setDialog] = useState<'stock' | 'terminate' | null>(null);
  if (error) return <Problem error={error} />;
  if (!data) return <Text>Loading…</Text>;
  if (!t) return <Alert color="red" title="Not found">No template {id} in this shop.</Alert>;
  const s = t.stats;
  return (
    <Stack>
      <Group justify="space-between">
        <Title order={2}>{t.name} <Badge color={statusColor[t.status]} variant="outline">{t.status}</Badge></Title>
        <Group>
          <Button variant="default" onClick={() => navigate(`/templates/${t.id}/reconciliation`)}>Reconciliation</Button>
          {t.source === 'SHOP' && t.status !== 'ENDED' && <Button variant="default" onClick={() => navigate(`/distribution?template=${t.id}`)}>Distribute</Button>}
          {t.status !== 'ENDED' && <Button onClick={() => setDialog('stock')}>Add stock</Button>}
          {t.status !== 'ENDED' && <Button color="red" onClick={() => setDialog('terminate')}>Terminate</Button>}
        </Group>
      </Group>
      <Text>Id <code data-field="id">{t.id}</code> · {offer(t)} · {t.target === 'PRODUCT' ? `product ${t.goods}` : 'shop-wide'} · limit {t.limitPerPerson} per person · refunds {t.refundPolicy}</Text>
      <Text>Valid {formatTime(t.validStartTime, timeZone)} – {formatTime(t.validEndTime, timeZone)} ({timeZone}){t.validityHours ? `, each coupon ${t.validityHours} h after its claim` : ''}</Text>
      {s && (
        <>
          <Group aria-label="Stock" role="group">
            <Stat name="remainingStock" label={live ? 'Remaining stock (live)' : 'Remaining stock'} value={formatCount(s.remainingStock)} />
            <Stat name="totalStock" label="Total stock" value={formatCount(s.totalStock)} />
          </Group>
          <Progress value={s.totalStock ? ((s.totalStock - s.remainingStock) / s.totalStock) * 100 : 0} aria-label="Share of stock issued" />
          <Title order={3}>Funnel</Title>
          <Group aria-label="Funnel" role="group">
            <Stat name="issued" label="Issued" value={formatCount(s.issuedCount)} />
            <Stat name="claimed" label="by claim" value={formatCount(s.issuedByOrigin.claim)} />
            <Stat name="distributed" label="by distribution" value={formatCount(s.issuedByOrigin.distribution)} />
            <Stat name="locked" label="Locked" value={formatCount(s.lockedCount)} />
            <Stat name="used" label="Used" value={formatCount(s.usedCount)} />
            <Stat name="expired" label="Expired" value={formatCount(s.expiredCount)} />
            <Stat name="refunded" label="Refunded" value={formatCount(s.refundedCount)} />
            <Stat name="redeemRate" label="Redeem rate" value={formatRate(s.redeemRate)} />
            <Stat name="discountTotal" label="Discount given" value={formatMoney(s.discountTotal)} />
          </Group>
          <Title order={3}>Per day ({timeZone})</Title>
          <LazyChart days={s.daily} title="Issued and used per day" />
        </>
      )}
      <Title order={3}>Log ({formatCount(data.templateLog.totalCount)})</Title>
      <Table striped>
        <Table.Thead><Table.Tr><Table.Th>When</Table.Th><Table.Th>Who</Table.Th><Table.Th>What</Table.Th><Table.Th>Before</Table.Th><Table.Th>After</Table.Th></Table.Tr></Table.Thead>
        <Table.Tbody>
          {data.templateLog.edges.map(({ cursor, node: e }) => (
            <Table.Tr key={cursor}>
              <Table.Td>{formatTime(e.at, timeZone)}</Table.Td><Table.Td>{e.actor}</Table.Td><Table.Td>{e.action}</Table.Td>
              <Table.Td>{e.before ?? ''}</Table.Td><Table.Td>{e.after ?? ''}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      <StockDialog id={t.id} opened={dialog === 'stock'} onClose={() => setDialog(null)} />
      <TerminateDialog id={t.id} name={t.name} opened={dialog === 'terminate'} onClose={() => setDialog(null)} />
    </Stack>
  );
}

function StockDialog({ id, opened, onClose }: { id: string; opened: boolean; onClose: () => void }) {
  const [amount, setAmount] = useState('');
  const [err, setErr] = useState<string | undefined>();
  const [{ fetching, error }, increase] = useMutation(IncreaseMutation);
  const submit = async () => {
    if (!/^\d+$/.test(amount.trim())) { setErr('Enter a whole number.'); return; }
    const r = await increase({ input: { templateId: id, amount: Number(amount) } });
    const p = r.data?.increaseCouponTemplateStock;
    if (p?.userErrors.length) { setErr(Object.values(fieldErrors(p.userErrors)).join(' ')); return; }
    if (p?.template) { setAmount(''); setErr(undefined); onClose(); }
  };
  return (
    <Modal opened={opened} onClose={onClose} title="Add stock">
      <form onSubmit={(e) => { e.preventDefault(); void submit(); }}>
        <Stack>
          <Problem error={error} />
          <TextInput label="Coupons to add" data-autofocus value={amount} error={err} onChange={(e) => setAmount(e.currentTarget.value)} />
          <Group justify="flex-end"><Button variant="default" onClick={onClose}>Cancel</Button><Button type="submit" loading={fetching}>Add stock</Button></Group>
        </Stack>
      </form>
    </Modal>
  );
}

function TerminateDialog({ id, name, opened, onClose }: { id: string; name: string; opened: boolean; onClose: () => void }) {
  const [{ fetching, error, data }, terminate] = useMutation(TerminateMutation);
  const errs = data?.terminateCouponTemplate.userErrors ?? [];
  return (
    <Modal opened={opened} onClose={onClose} title="Terminate the template?">
      <Stack>
        <Text>No claim of “{name}” succeeds afterwards. This cannot be undone.</Text>
        <Problem error={error} />
        {errs.map((e) => <Alert key={e.code + e.message} color="red" role="alert">{e.message}</Alert>)}
        <Group justify="flex-end">
          <Button variant="default" onClick={onClose}>Keep it</Button>
          <Button color="red" loading={fetching} onClick={async () => {
            const r = await terminate({ input: { templateId: id } });
            if (r.data?.terminateCouponTemplate.template && !r.data.terminateCouponTemplate.userErrors.length) onClose();
          }}>Terminate</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
