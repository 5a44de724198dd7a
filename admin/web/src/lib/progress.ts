// The distribution screen's state: the upload's bytes, then the task as couponTaskProgress pushes it.
// Pushes may arrive out of order (a poll answer after a newer push): counts never go backwards and a
// finished task stays finished.

export type TaskSnapshot = {
  id: string;
  status: string;
  /** Data rows in the file, once counted. */
  sendNum?: number | null;
  processedRows: number;
  successCount: number;
  failCount: number;
};

export type Progress = {
  phase: 'idle' | 'uploading' | 'running' | 'done' | 'failed';
  loaded: number;
  total: number;
  task: TaskSnapshot | null;
  updates: number;
  error: string | null;
};

export type ProgressAction =
  | { type: 'upload'; loaded: number; total: number }
  | { type: 'created'; task: TaskSnapshot }
  | { type: 'task'; task: TaskSnapshot }
  | { type: 'error'; message: string }
  | { type: 'reset' };

export const initialProgress: Progress = { phase: 'idle', loaded: 0, total: 0, task: null, updates: 0, error: null };

const finished = new Set(['SUCCESS', 'FAILED', 'CANCELED']);

/** Whether a task status is final. */
export function isFinished(status: string): boolean {
  return finished.has(status);
}

export function progressReducer(s: Progress, a: ProgressAction): Progress {
  switch (a.type) {
    case 'reset':
      return initialProgress;
    case 'upload':
      return { ...s, phase: 'uploading', loaded: Math.max(s.loaded, a.loaded), total: a.total, error: null };
    case 'error':
      return { ...s, phase: 'failed', error: a.message };
    case 'created':
    case 'task': {
      const prev = s.task;
      if (prev && prev.id === a.task.id) {
        if (isFinished(prev.status) && !isFinished(a.task.status)) return s;
        if (a.task.processedRows < prev.processedRows) return s;
      }
      const task = prev && prev.id === a.task.id ? {
        ...a.task,
        processedRows: Math.max(prev.processedRows, a.task.processedRows),
        successCount: Math.max(prev.successCount, a.task.successCount),
        failCount: Math.max(prev.failCount, a.task.failCount),
      } : a.task;
      return {
        ...s,
        phase: isFinished(task.status) ? 'done' : 'running',
        loaded: s.total || s.loaded,
        task,
        updates: s.updates + (a.type === 'task' ? 1 : 0),
      };
    }
  }
}
