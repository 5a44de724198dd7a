// Package distribution is the bulk issue of coupons to the users listed in an uploaded
// spreadsheet (.xlsx or .csv): the upload and its checks (upload.go, sniff.go), the blob store the
// files live in (blob.go), the streaming reader and its format rules (sheet.go, userid.go), the
// task and its lifecycle (task.go; tasks.go: reads, failures and cancel; count.go: the row cap;
// reaper.go, retention.go), the execution by batches, exact under crashes, the file read once
// and ahead of the writes (run.go, read.go, batch.go, after_commit.go), the failure report (report.go), progress announcements (progress.go, hub.go)
// and metrics (metrics.go).
//
// Every listed user gets one coupon of the task's template exactly once, with the stock and the
// per-user limit flash-sale claims use: the same template hash, the same claim counter and
// receive_count sequence in Redis (lua/distribute.lua), the same slot rule in MySQL (a
// receive_count in 1…limitPerPerson under the unique (user_id, template_id, receive_count)).
package distribution
