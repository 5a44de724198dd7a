package graph

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"

	"coupond/auth"
	"coupond/coupon"
	"coupond/coupon/distribution"
	"coupond/graph/model"
	"coupond/graph/scalar"
)

// taskPayload builds a CouponTaskPayload from a domain result.
func taskPayload(t *distribution.Task, err error) (*model.CouponTaskPayload, error) {
	userErrors, err := payload(err)
	if err != nil {
		return nil, err
	}
	if len(userErrors) > 0 {
		t = nil
	}
	return &model.CouponTaskPayload{Task: t, UserErrors: userErrors}, nil
}

// createTaskInput converts the GraphQL input.
func createTaskInput(in model.CreateCouponTaskInput) (distribution.CreateInput, error) {
	id, err := scalar.ParseID(in.TemplateID)
	if err != nil {
		return distribution.CreateInput{}, err
	}
	out := distribution.CreateInput{TemplateID: id, Name: in.Name, SendType: in.SendType, Sheet: in.Sheet,
		FileName: in.File.Filename, File: in.File.File}
	out.SendTime = in.SendTime
	return out, nil
}

// taskFilter converts couponTasks' shopNumber and filter arguments.
func taskFilter(shopNumber *string, in *model.CouponTaskFilter) (distribution.Filter, error) {
	shop, err := shopArg(shopNumber) // (graph/stats.go)
	if err != nil || in == nil {
		return distribution.Filter{ShopNumber: shop}, err
	}
	f := distribution.Filter{ShopNumber: shop, Status: in.Status}
	if in.TemplateID != nil {
		id, err := scalar.ParseID(*in.TemplateID)
		if err != nil {
			return f, err
		}
		f.TemplateID = &id
	}
	return f, nil
}

// taskConnection builds the Relay connection of a page of tasks.
func taskConnection(p coupon.Page[*distribution.Task], req pageRequest) *model.CouponTaskConnection {
	edges, info := page(p.Items, p.HasMore, req, func(t *distribution.Task) int64 { return t.ID },
		func(cursor string, t *distribution.Task) *model.CouponTaskEdge {
			return &model.CouponTaskEdge{Cursor: cursor, Node: t}
		})
	return &model.CouponTaskConnection{Edges: edges, PageInfo: info, TotalCount: p.Total}
}

// failureConnection reads one page of a task's failures (cursors are row numbers).
func (r *Resolver) failureConnection(ctx context.Context, t *distribution.Task, first *int, after *string) (*model.CouponTaskFailureConnection, error) {
	req, err := pageArgs(first, after, nil, nil)
	if err != nil {
		return nil, err
	}
	rows, more, err := r.Distribution.Failures(ctx, t.ID, int(req.afterID), req.size)
	if err != nil {
		return nil, err
	}
	edges, info := page(rows, more, req, func(f distribution.Failure) int64 { return int64(f.RowNum) },
		func(cursor string, f distribution.Failure) *model.CouponTaskFailureEdge {
			return &model.CouponTaskFailureEdge{Cursor: cursor, Node: &f}
		})
	return &model.CouponTaskFailureConnection{Edges: edges, PageInfo: info, TotalCount: t.FailCount}, nil
}

// reportPath is where a task's failure report is served (ReportHandler).
func reportPath(id int64) string { return "/tasks/" + strconv.FormatInt(id, 10) + "/failures.xlsx" }

// failureReportURL is the report's URL, when the task has failures.
func failureReportURL(t *distribution.Task) *string {
	if t.FailCount == 0 {
		return nil
	}
	p := reportPath(t.ID)
	return &p
}

// ReportHandler serves GET /tasks/{id}/failures.xlsx to the task's merchant (bearer token, read
// by auth.Signer.Middleware in front of it); anyone else gets 404, as for an unknown task.
func ReportHandler(svc *distribution.Service) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		actor, ok, err := auth.FromContext(r.Context())
		if err != nil || !ok {
			http.Error(w, errUnauthenticated.Message, http.StatusUnauthorized)
			return
		}
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		if _, err := svc.Get(r.Context(), actor, id); errors.Is(err, coupon.ErrNotFound) {
			http.NotFound(w, r)
			return
		} else if err != nil {
			http.Error(w, "internal error", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet")
		w.Header().Set("Content-Disposition", `attachment; filename="task-`+strconv.FormatInt(id, 10)+`-failures.xlsx"`)
		if err := svc.WriteReport(r.Context(), id, w); err != nil {
			logReportError(r.Context(), id, err)
		}
	})
}

func logReportError(ctx context.Context, id int64, err error) {
	slog.WarnContext(ctx, "failure report not written", "task", id, "err", err)
}
