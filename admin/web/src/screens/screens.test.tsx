import { describe, expect, it } from 'vitest';
import { render, screen } from '@testing-library/react';
import { MantineProvider } from '@mantine/core';
import { Provider, type Client } from 'urql';
import { fromValue, never } from 'wonka';
import type { ReactNode } from 'react';
import { SessionContext, type Session } from '../session';
import { Reconciliation } from './Reconciliation';
import { Templates } from './Templates';

const session: Session = { token: 't', role: 'MERCHANT', userId: '7', shop: '1001', timeZone: 'Asia/Shanghai', statsMaxDays: 366, uploadMaxBytes: 1 << 20 };

/** A client answering every query with data (the screens' rendering, without a server). */
function withData(data: unknown, children: ReactNode) {
  const client = {
    executeQuery: () => fromValue({ data, stale: false, hasNext: false }),
    executeMutation: () => never,
    executeSubscription: () => never,
  } as unknown as Client;
  return (
    <MantineProvider>
      <Provider value={client}>
        <SessionContext.Provider value={session}>{children}</SessionContext.Provider>
      </Provider>
    </MantineProvider>
  );
}

describe('screens', () => {
  it('lists templates with their 64-bit ids and money as sent', () => {
    const id = '9223372036854775807'; // Number(id) would print 9223372036854776000
    render(withData({
      couponTemplates: {
        totalCount: 1, pageInfo: { hasNextPage: false, endCursor: null },
        edges: [{ cursor: 'c', node: {
          id, name: 'Winter', type: 'THRESHOLD_OFF', status: 'ACTIVE', stock: 5, totalStock: 10,
          validStartTime: '2026-12-01T16:00:00Z', validEndTime: '2026-12-31T16:00:00Z',
          discountAmount: '20.00', discountRate: null, thresholdAmount: '1999.9',
          stats: { issuedCount: 5, usedCount: 2, redeemRate: 0.4, discountTotal: '40.00' },
        } }],
      },
    }, <Templates />));
    const link = screen.getByRole('link', { name: 'Winter' });
    expect(link.getAttribute('href')).toBe(`/admin/templates/${id}`);
    expect(screen.getByText('20.00 off 1,999.90 or more')).toBeTruthy();
    expect(screen.getByText('40.0%')).toBeTruthy();
    expect(screen.getByText('2026-12-02 00:00 – 2027-01-01 00:00')).toBeTruthy(); // Shanghai days
  });

  it('names each equation that does not hold, and says when Redis was skipped', () => {
    render(withData({
      couponTemplate: { id: '5', name: 'Sale' },
      reconciliation: {
        templateId: '5', totalStock: 100, redisStock: 93, dbStock: 90, issued: 10, pending: 0, failed: 0,
        balanced: false, drift: ['redis stock 93 + issued 10 + pending 0 ≠ total 100'], redisChecked: false, checkedAt: '2026-12-04T01:00:00Z',
      },
    }, <Reconciliation id="5" />));
    expect(screen.getByText('Not balanced')).toBeTruthy();
    expect(screen.getByText('redis stock 93 + issued 10 + pending 0 ≠ total 100')).toBeTruthy();
    expect(screen.getByText('Redis not checked')).toBeTruthy();
  });
});
