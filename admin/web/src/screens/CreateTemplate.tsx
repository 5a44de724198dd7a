import { useState } from 'react';
import { Alert, Button, Card, Group, Radio, SimpleGrid, Stack, Text, TextInput, Textarea, Title, UnstyledButton } from '@mantine/core';
import { useMutation } from 'urql';
import { graphql } from '../gql';
import type { CreateCouponTemplateInput, DiscountTarget, DiscountType, RefundPolicy } from '../gql/graphql';
import { fieldErrors } from '../lib/errors';
import { addDays, dayIn, zonedInstant } from '../lib/format';
import { navigate } from '../lib/router';
import { useSession } from '../session';
import { Problem } from './Problem';

const CreateMutation = graphql(`
  mutation CreateTemplate($input: CreateCouponTemplateInput!) {
    createCouponTemplate(input: $input) {
      template { id name status }
      userErrors { code field message }
    }
  }
`);

type TypeCard = { type: DiscountType; title: string; summary: string; fields: string[] };

/** The offer types; each card shows only the amounts its type uses. */
const cards: TypeCard[] = [
  { type: 'FIXED_OFF', title: 'Amount off', summary: 'A fixed amount off any order.', fields: ['discountAmount'] },
  { type: 'THRESHOLD_OFF', title: 'Amount off from a threshold', summary: 'An amount off orders from a minimum amount.', fields: ['thresholdAmount', 'discountAmount'] },
  { type: 'PERCENT_OFF', title: 'Percentage off', summary: 'A share of the price, optionally capped.', fields: ['discountRate', 'maxDiscountAmount'] },
];

const labels: Record<string, string> = {
  discountAmount: 'Amount off', thresholdAmount: 'Threshold amount',
  discountRate: 'Share paid (0.85 = 15% off)', maxDiscountAmount: 'Largest amount off (optional)',
};

type Form = Record<string, string>;

/** Create a template: pick a type card, fill in what it uses; every userErrors entry shows at its field. */
export function CreateTemplate() {
  const { role, timeZone } = useSession();
  const today = dayIn(new Date(), timeZone);
  const [card, setCard] = useState<TypeCard | null>(null);
  const [form, setForm] = useState<Form>({
    name: '', target: 'SHOP_WIDE', goods: '', validStartTime: `${today}T00:00`, validEndTime: `${addDays(today, 30)}T00:00`,
    stock: '100', limitPerPerson: '1', validityHours: '', refundPolicy: 'RETURN', usageInstructions: '',
    discountAmount: '', thresholdAmount: '', discountRate: '', maxDiscountAmount: '',
  });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [{ fetching, error }, create] = useMutation(CreateMutation);
  const set = (k: string) => (v: string) => setForm({ ...form, [k]: v });

  if (!card) {
    return (
      <Stack>
        <Title order={2}>New template: choose the offer</Title>
        <SimpleGrid cols={{ base: 1, sm: 3 }}>
          {cards.map((c) => (
            <UnstyledButton key={c.type} onClick={() => setCard(c)} aria-label={`${c.title}: ${c.summary}`}>
              <Card withBorder padding="lg" h="100%">
                <Text fw={700}>{c.title}</Text>
                <Text size="sm">{c.summary}</Text>
              </Card>
            </UnstyledButton>
          ))}
        </SimpleGrid>
      </Stack>
    );
  }

  const submit = async () => {
    const local: Record<string, string> = {};
    const int = (k: string, optional = false): number | null => {
      const v = form[k].trim();
      if (optional && v === '') return null;
      if (!/^-?\d+$/.test(v)) { local[k] = 'Enter a whole number.'; return 0; }
      return Number(v);
    };
    const time = (k: string): string => {
      const t = zonedInstant(form[k], timeZone);
      if (!t) local[k] = 'Enter a date and time.';
      return t ?? '';
    };
    const dec = (k: string): string | null => (card.fields.includes(k) && form[k].trim() !== '' ? form[k].trim() : null);
    const input: CreateCouponTemplateInput = {
      name: form.name, source: role === 'PLATFORM' ? 'PLATFORM' : 'SHOP', target: form.target as DiscountTarget,
      goods: form.target === 'PRODUCT' ? form.goods : null, type: card.type,
      validStartTime: time('validStartTime'), validEndTime: time('validEndTime'),
      stock: int('stock') ?? 0, limitPerPerson: int('limitPerPerson') ?? 0, validityHours: int('validityHours', true),
      refundPolicy: form.refundPolicy as RefundPolicy, usageInstructions: form.usageInstructions || null,
      discountAmount: dec('discountAmount'), thresholdAmount: dec('thresholdAmount'),
      discountRate: dec('discountRate'), maxDiscountAmount: dec('maxDiscountAmount'),
    };
    if (Object.keys(local).length) { setErrors(local); return; }
    const r = await create({ input });
    const p = r.data?.createCouponTemplate;
    if (!p) return;
    if (p.userErrors.length) { setErrors(fieldErrors(p.userErrors)); return; }
    if (p.template) navigate(`/templates/${p.template.id}`);
  };

  const shown = ['name', 'target', 'goods', 'validStartTime', 'validEndTime', 'stock', 'limitPerPerson', 'validityHours', 'refundPolicy', 'usageInstructions', ...card.fields];
  const unplaced = Object.entries(errors).filter(([k]) => !shown.includes(k) || (k === 'goods' && form.target !== 'PRODUCT'));
  const text = (k: string, label: string, type = 'text') => (
    <TextInput key={k} id={`f-${k}`} label={label} type={type} value={form[k]} error={errors[k]} onChange={(e) => set(k)(e.currentTarget.value)} />
  );
  return (
    <Stack maw={640}>
      <Group justify="space-between">
        <Title order={2}>New template: {card.title}</Title>
        <Button variant="default" onClick={() => setCard(null)}>Change type</Button>
      </Group>
      <Problem error={error} />
      {unplaced.length > 0 && (
        <Alert color="red" role="alert" title="Fix these">
          {unplaced.map(([k, m]) => <div key={k}>{k ? `${k}: ` : ''}{m}</div>)}
        </Alert>
      )}
      <form onSubmit={(e) => { e.preventDefault(); void submit(); }}>
        <Stack>
          {text('name', 'Name')}
          <Radio.Group label="Applies to" value={form.target} onChange={set('target')} error={errors.target}>
            <Group mt="xs"><Radio value="SHOP_WIDE" label="The whole shop" /><Radio value="PRODUCT" label="One product" /></Group>
          </Radio.Group>
          {form.target === 'PRODUCT' && text('goods', 'Product (goods id)')}
          {card.fields.map((k) => text(k, labels[k]))}
          <Group grow>
            {text('validStartTime', `Claiming opens (${timeZone})`, 'datetime-local')}
            {text('validEndTime', `Claiming closes (${timeZone})`, 'datetime-local')}
          </Group>
          <Group grow>
            {text('stock', 'Stock', 'number')}
            {text('limitPerPerson', 'Limit per person', 'number')}
            {text('validityHours', 'Hours valid after claim (optional)', 'number')}
          </Group>
          <Radio.Group label="On refund" value={form.refundPolicy} onChange={set('refundPolicy')} error={errors.refundPolicy}>
            <Group mt="xs"><Radio value="RETURN" label="Return the coupon" /><Radio value="FORFEIT" label="The coupon is spent" /></Group>
          </Radio.Group>
          <Textarea id="f-usageInstructions" label="Usage instructions" value={form.usageInstructions} error={errors.usageInstructions}
            onChange={(e) => set('usageInstructions')(e.currentTarget.value)} />
          <Button type="submit" loading={fetching}>Create</Button>
        </Stack>
      </form>
    </Stack>
  );
}
