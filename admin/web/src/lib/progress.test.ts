import { describe, expect, it } from 'vitest';
import { initialProgress, progressReducer, type Progress, type ProgressAction } from './progress';

const task = (status: string, processedRows: number, successCount: number, failCount: number) =>
  ({ id: '9007199254740993', status, processedRows, successCount, failCount });
const run = (actions: ProgressAction[]): Progress => actions.reduce(progressReducer, initialProgress);

describe('progress reducer', () => {
  it('goes upload → running → done, counting pushes', () => {
    const s = run([
      { type: 'upload', loaded: 100, total: 400 },
      { type: 'upload', loaded: 400, total: 400 },
      { type: 'created', task: task('PENDING', 0, 0, 0) },
      { type: 'task', task: task('IN_PROGRESS', 2, 2, 0) },
      { type: 'task', task: task('IN_PROGRESS', 4, 3, 1) },
      { type: 'task', task: task('SUCCESS', 7, 3, 4) },
    ]);
    expect(s.phase).toBe('done');
    expect(s.updates).toBe(3);
    expect(s.task).toEqual(task('SUCCESS', 7, 3, 4));
    expect(s.task?.id).toBe('9007199254740993'); // the id stays the string it came as
  });
  it('never goes backwards, and a finished task stays finished', () => {
    const s = run([
      { type: 'created', task: task('IN_PROGRESS', 4, 3, 1) },
      { type: 'task', task: task('IN_PROGRESS', 2, 2, 0) },
      { type: 'task', task: task('CANCELED', 4, 3, 1) },
      { type: 'task', task: task('IN_PROGRESS', 5, 4, 1) },
    ]);
    expect(s.task).toEqual(task('CANCELED', 4, 3, 1));
    expect(s.phase).toBe('done');
  });
  it('never shrinks the bytes sent and reports a failure', () => {
    const s = run([{ type: 'upload', loaded: 300, total: 400 }, { type: 'upload', loaded: 100, total: 400 }]);
    expect(s.loaded).toBe(300);
    expect(run([{ type: 'error', message: 'boom' }])).toMatchObject({ phase: 'failed', error: 'boom' });
  });
});
