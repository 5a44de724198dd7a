package main

import (
	"fmt"
	"log/slog"

	"coupond/jobs"

	"github.com/hibiken/asynq"
)

// worker is the asynq server and scheduler of `serve --mode all|worker`.
type worker struct {
	srv   *asynq.Server
	sched *asynq.Scheduler
}

// startWorker starts the asynq server on the weighted queues (jobs.Queues), with domain refusals
// not counted as failures (jobs.IsFailure), failures counted and logged (jobs.ErrorHandler),
// short retries of persist tasks (jobs.RetryDelay), and the scheduler of the periodic tasks.
func (a *app) startWorker() (*worker, error) {
	w := &worker{
		srv: asynq.NewServer(a.queueOpt, asynq.Config{
			Concurrency: a.cfg.Concurrency, Queues: jobs.Queues(), Logger: slogAsynq{},
			IsFailure: jobs.IsFailure, ErrorHandler: jobs.ErrorHandler, RetryDelayFunc: jobs.RetryDelay,
			DelayedTaskCheckInterval: jobs.DelayedTaskCheck, TaskCheckInterval: jobs.TaskCheck,
		}),
		sched: asynq.NewScheduler(a.queueOpt, &asynq.SchedulerOpts{Logger: slogAsynq{}}),
	}
	if err := w.srv.Start(a.svc.Mux()); err != nil {
		return nil, fmt.Errorf("worker: %w", err)
	}
	if err := jobs.RegisterPeriodic(w.sched, jobs.Periods{Drain: a.cfg.DrainEvery, Sweep: a.cfg.SweepEvery, Reap: a.cfg.ReapEvery, Retain: a.cfg.UploadRetention,
		Checkout: a.cfg.CheckoutSweep, Archive: a.cfg.ArchiveEvery, Reminder: a.cfg.ReminderSweepEvery,
		Stats: a.cfg.StatsRollUpEvery, Reconcile: a.cfg.ReconcileEvery}); err != nil {
		w.srv.Shutdown()
		return nil, err
	}
	if err := w.sched.Start(); err != nil {
		w.srv.Shutdown()
		return nil, fmt.Errorf("scheduler: %w", err)
	}
	slog.Info("worker started", "concurrency", a.cfg.Concurrency, "redeemMode", a.cfg.Redeem.Mode)
	return w, nil
}

// stop stops the scheduler, then the server, which waits for running tasks (unfinished ones go
// back to their queue).
func (w *worker) stop() {
	w.sched.Shutdown()
	w.srv.Shutdown()
}

// slogAsynq routes asynq's logs to slog.
type slogAsynq struct{}

func (slogAsynq) Debug(args ...any) { slog.Debug("asynq", "msg", args) }
func (slogAsynq) Info(args ...any)  { slog.Info("asynq", "msg", args) }
func (slogAsynq) Warn(args ...any)  { slog.Warn("asynq", "msg", args) }
func (slogAsynq) Error(args ...any) { slog.Error("asynq", "msg", args) }
func (slogAsynq) Fatal(args ...any) { slog.Error("asynq fatal", "msg", args); panic(args) }
