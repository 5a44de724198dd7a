import { useEffect, useReducer, useState } from 'react';
import { flushSync } from 'react-dom';
import { Alert, Button, FileInput, Group, Progress, Select, Stack, Table, Text, TextInput, Title } from '@mantine/core';
import { useClient, useQuery } from 'urql';
import { graphql } from '../gql';
import type { CreateTaskMutation } from '../gql/graphql';
import { errorMessage } from '../lib/errors';
import { formatCount, formatTime } from '../lib/format';
import { initialProgress, isFinished, progressReducer, type TaskSnapshot } from '../lib/progress';
import { uploadMutation } from '../lib/upload';
import { navigate } from '../lib/router';
import { useSession } from '../session';
import { Problem } from './Problem';

const OpenTemplatesQuery = graphql(`
  query OpenTemplates($shop: String) {
    notStarted: couponTemplates(first: 50, filter: { status: NOT_STARTED, source: SHOP, shopNumber: $shop }) { edges { node { id name } } }
    active: couponTemplates(first: 50, filter: { status: ACTIVE, source: SHOP, shopNumber: $shop }) { edges { node { id name } } }
  }
`);

export const CreateTaskDocument = graphql(`
  mutation CreateTask($input: CreateCouponTaskInput!) {
    createCouponTask(input: $input) {
      task { id status sendNum processedRows successCount failCount }
      userErrors { code field message }
    }
  }
`);

const TaskFields = graphql(`
  query TaskView($id: ID!) {
    couponTask(id: $id) {
      id name status sendType processedRows successCount failCount failureReportUrl failureReason fileName createdAt completedAt
      template { id name }
      failureCounts { code count }
      failures(first: 50) { totalCount edges { cursor node { rowNum userId code reason } } }
    }
  }
`);

const ProgressSubscription = graphql(`
  subscription TaskProgress($id: ID!) {
    couponTaskProgress(id: $id) { id status sendNum processedRows successCount failCount }
  }
`);

const CancelMutation = graphql(`
  mutation CancelTask($input: CancelCouponTaskInput!) {
    cancelCouponTask(input: $input) { task { id status } userErrors { code field message } }
  }
`);

/** Upload a list of users for a template, then follow the task live; with taskId, follow that task. */
export function Distribution({ taskId }: { taskId?: string }) {
  const { token, shop, uploadMaxBytes, timeZone } = useSession();
  const client = useClient();
  const [p, dispatch] = useReducer(progressReducer, initialProgress);
  const [template, setTemplate] = useState<string | null>(() => new URLSearchParams(location.search).get('template'));
  const [name, setName] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [errs, setErrs] = useState<string[]>([]);
  const id = taskId ?? p.task?.id ?? null;
  const [{ data: open }] = useQuery({ query: OpenTemplatesQuery, variables: { shop }, pause: !!taskId || !shop });
  const [{ data: view, error: viewError }, refetchView] = useQuery({ query: TaskFields, variables: { id: id ?? '' }, pause: !id });

  useEffect(() => {
    if (!id) return;
    const sub = client.subscription(ProgressSubscription, { id }).subscribe((r) => {
      if (r.error) { dispatch({ type: 'error', message: errorMessage(r.error) ?? 'progress failed' }); return; }
      const t = r.data?.couponTaskProgress;
      if (!t) return;
      flushSync(() => dispatch({ type: 'task', task: t })); // each push rendered, none merged into the next
      if (isFinished(t.status)) refetchView({ requestPolicy: 'network-only' });
    });
    return () => sub.unsubscribe();
  }, [id, client, refetchView]);

  const start = async () => {
    if (!template || !file) return;
    if (file.size > uploadMaxBytes) { setErrs([`The file is larger than the server takes (${formatCount(uploadMaxBytes)} bytes).`]); return; }
    setErrs([]);
    dispatch({ type: 'upload', loaded: 0, total: file.size });
    try {
      const r = await uploadMutation<CreateTaskMutation>(token, CreateTaskDocument, { templateId: template, name: name || file.name, sendType: 'IMMEDIATE' }, file,
        (loaded, total) => dispatch({ type: 'upload', loaded, total }));
      const pl = r.data?.createCouponTask;
      if (r.errors?.length) { dispatch({ type: 'error', message: r.errors[0].message }); return; }
      if (pl?.userErrors.length) { setErrs(pl.userErrors.map((e) => `${e.code}: ${e.message}`)); dispatch({ type: 'reset' }); return; }
      if (pl?.task) dispatch({ type: 'created', task: pl.task });
    } catch (e) {
      dispatch({ type: 'error', message: (e as Error).message });
    }
  };

  const task = view?.couponTask;
  const live = p.task && p.task.id === id ? p.task : task ?? null;
  const options = [...(open?.active.edges ?? []), ...(open?.notStarted.edges ?? [])].map(({ node }) => ({ value: node.id, label: `${node.name} (${node.id})` }));
  return (
    <Stack>
      <Title order={2}>{taskId ? `Task ${taskId}` : 'Distribute coupons from a spreadsheet'}</Title>
      {!taskId && !p.task && (
        <form onSubmit={(e) => { e.preventDefault(); void start(); }}>
          <Stack maw={560}>
            <Select label="Template" searchable data={options} value={template} onChange={setTemplate} />
            <TextInput label="Task name" value={name} onChange={(e) => setName(e.currentTarget.value)} />
            <FileInput label="List of users (.xlsx or .csv)" accept=".xlsx,.csv" value={file} onChange={setFile} />
            {errs.map((m) => <Alert key={m} color="red" role="alert">{m}</Alert>)}
            <Button type="submit" disabled={!template || !file || p.phase === 'uploading'}>Upload and start</Button>
          </Stack>
        </form>
      )}
      {p.phase === 'uploading' && (
        <Stack gap={4}>
          <Text>Uploading {formatCount(p.loaded)} of {formatCount(p.total)} bytes</Text>
          <Progress value={p.total ? (p.loaded / p.total) * 100 : 0} aria-label="Upload" />
        </Stack>
      )}
      {p.error && <Alert color="red" role="alert" title="Failed">{p.error}</Alert>}
      <Problem error={viewError} />
      {live && <TaskProgressView task={live} updates={p.updates} />}
      {task && (
        <>
          <Text>{task.name} · file {task.fileName} · template {task.template.name} · created {formatTime(task.createdAt, timeZone)} ({timeZone})</Text>
          {task.failureReason && <Alert color="red">{task.failureReason}</Alert>}
          <Group>
            {!isFinished(live?.status ?? task.status) && (
              <Button color="red" variant="outline" onClick={() => void client.mutation(CancelMutation, { input: { taskId: task.id } }).toPromise()}>Cancel task</Button>
            )}
            {task.failureReportUrl && <Button variant="default" onClick={() => void download(task.failureReportUrl!, token, `task-${task.id}-failures.xlsx`)}>Download failure report</Button>}
            <Button variant="default" onClick={() => navigate('/tasks')}>All tasks</Button>
          </Group>
          {task.failureCounts.length > 0 && (
            <>
              <Title order={3}>Failures by code</Title>
              <Table data-table="failureCounts">
                <Table.Thead><Table.Tr><Table.Th>Code</Table.Th><Table.Th>Rows</Table.Th></Table.Tr></Table.Thead>
                <Table.Tbody>{task.failureCounts.map((f) => <Table.Tr key={f.code}><Table.Td>{f.code}</Table.Td><Table.Td>{formatCount(f.count)}</Table.Td></Table.Tr>)}</Table.Tbody>
              </Table>
              <Title order={3}>Failed rows</Title>
              <Table striped data-table="failures">
                <Table.Thead><Table.Tr><Table.Th>Row</Table.Th><Table.Th>User id</Table.Th><Table.Th>Code</Table.Th><Table.Th>Reason</Table.Th></Table.Tr></Table.Thead>
                <Table.Tbody>
                  {task.failures.edges.map(({ cursor, node: f }) => (
                    <Table.Tr key={cursor}><Table.Td>{f.rowNum}</Table.Td><Table.Td>{f.userId ?? ''}</Table.Td><Table.Td>{f.code}</Table.Td><Table.Td>{f.reason}</Table.Td></Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            </>
          )}
        </>
      )}
    </Stack>
  );
}

function TaskProgressView({ task, updates }: { task: TaskSnapshot; updates: number }) {
  const done = isFinished(task.status);
  const share = done ? 100 : task.sendNum ? (task.processedRows / task.sendNum) * 100 : 0;
  return (
    <Stack gap={4} data-task-status={task.status} data-updates={updates}>
      <Text aria-live="polite">
        {task.status}: <span data-stat="processedRows">{formatCount(task.processedRows)}</span> rows ·{' '}
        <span data-stat="successCount">{formatCount(task.successCount)}</span> issued ·{' '}
        <span data-stat="failCount">{formatCount(task.failCount)}</span> failed
      </Text>
      <Progress value={share} aria-label="Distribution" animated={!done} />
    </Stack>
  );
}

/** Fetches the report with the bearer token and saves it (the URL needs the Authorization header). */
async function download(url: string, token: string, name: string) {
  const r = await fetch(url, { headers: { Authorization: `Bearer ${token}` } });
  if (!r.ok) throw new Error(`the report answered ${r.status}`);
  const href = URL.createObjectURL(await r.blob());
  const a = document.createElement('a');
  a.href = href;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(href), 1000);
}
