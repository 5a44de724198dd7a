package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// gqlClient posts GraphQL requests to one coupond over loopback.
type gqlClient struct {
	url string
	hc  *http.Client
}

func newGQLClient(baseURL string) *gqlClient {
	tr := &http.Transport{MaxIdleConns: 128, MaxIdleConnsPerHost: 128, IdleConnTimeout: 30 * time.Second}
	return &gqlClient{url: baseURL + "/query", hc: &http.Client{Transport: tr}}
}

// gqlError is a GraphQL-level error in the response (not a userErrors entry).
type gqlError struct {
	Message    string         `json:"message"`
	Extensions map[string]any `json:"extensions"`
}

// do posts query with vars as token's bearer, waiting at most timeout, and decodes data into out.
// A transport error, a non-200 status or a GraphQL error is an error.
func (c *gqlClient) do(ctx context.Context, timeout time.Duration, token, query string, vars map[string]any, out any) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %s: %.200s", resp.Status, b)
	}
	var env struct {
		Data   json.RawMessage `json:"data"`
		Errors []gqlError      `json:"errors"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		return fmt.Errorf("decode response: %w", err)
	}
	if len(env.Errors) > 0 {
		return fmt.Errorf("graphql: %s %v", env.Errors[0].Message, env.Errors[0].Extensions["code"])
	}
	return json.Unmarshal(env.Data, out)
}

type userError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

const createTemplateMutation = `mutation($in: CreateCouponTemplateInput!) {
  createCouponTemplate(input: $in) { template { id totalStock } userErrors { code field message } } }`

// createTemplate creates an active SHOP_WIDE threshold template with stock and limit, as merchant,
// with stockShards Redis sub-stocks when it is above 0 (else the server's default).
func (c *gqlClient) createTemplate(ctx context.Context, merchant string, stock, limit, stockShards int) (string, error) {
	now := time.Now().UTC()
	in := map[string]any{
		"name": "chaos", "source": "SHOP", "target": "SHOP_WIDE", "type": "THRESHOLD_OFF",
		"validStartTime": now.Add(-time.Minute).Format(time.RFC3339),
		"validEndTime":   now.Add(24 * time.Hour).Format(time.RFC3339),
		"stock":          stock, "limitPerPerson": limit, "thresholdAmount": "200", "discountAmount": "20",
	}
	if stockShards > 0 {
		in["stockShards"] = stockShards
	}
	var out struct {
		CreateCouponTemplate struct {
			Template   *struct{ ID string } `json:"template"`
			UserErrors []userError          `json:"userErrors"`
		} `json:"createCouponTemplate"`
	}
	if err := c.do(ctx, 10*time.Second, merchant, createTemplateMutation, map[string]any{"in": in}, &out); err != nil {
		return "", err
	}
	if p := out.CreateCouponTemplate; p.Template == nil {
		return "", fmt.Errorf("createCouponTemplate refused: %v", p.UserErrors)
	}
	return out.CreateCouponTemplate.Template.ID, nil
}

const redeemMutation = `mutation($t: ID!, $r: String) {
  redeemCoupon(input: {templateId: $t, requestId: $r}) { redemption { id status } userErrors { code message } } }`

// answer is what one redeemCoupon call told the client: a redemption id (accepted), a refusal
// code, or an error (no answer: timeout, transport, GraphQL error).
type answer struct {
	RedemptionID string
	Status       string
	Code         string
	Err          error
	At           time.Time // when it came
}

// errUnconfirmed is the "answer" UNCONFIRMED: the claim is to be asked again with its requestId.
var errUnconfirmed = errors.New("UNCONFIRMED")

func (a answer) accepted() bool { return a.RedemptionID != "" }

// redeem claims one coupon of template with requestID as the user whose token is given.
func (c *gqlClient) redeem(ctx context.Context, timeout time.Duration, token, template, requestID string) answer {
	var out struct {
		RedeemCoupon struct {
			Redemption *struct{ ID, Status string } `json:"redemption"`
			UserErrors []userError                  `json:"userErrors"`
		} `json:"redeemCoupon"`
	}
	err := c.do(ctx, timeout, token, redeemMutation, map[string]any{"t": template, "r": requestID}, &out)
	a := answerOf(out.RedeemCoupon.Redemption, out.RedeemCoupon.UserErrors, err)
	a.At = time.Now()
	return a
}

// answerOf is the answer a redeemCoupon response (or the error of its call) gives.
func answerOf(r *struct{ ID, Status string }, userErrors []userError, err error) answer {
	switch {
	case err != nil:
		return answer{Err: err}
	case r != nil:
		return answer{RedemptionID: r.ID, Status: r.Status}
	case len(userErrors) > 0 && userErrors[0].Code == "UNCONFIRMED":
		// Taken but not acknowledged by replicas (COUPON_REDIS_WAIT_REPLICAS): not an answer yet;
		// the retry with the same requestId gives it.
		return answer{Err: errUnconfirmed}
	case len(userErrors) > 0:
		return answer{Code: userErrors[0].Code}
	default:
		return answer{Err: fmt.Errorf("redeemCoupon: neither redemption nor userErrors")}
	}
}

const redemptionQuery = `query($id: ID!) { redemption(id: $id) { id status failureReason coupon { code } } }`

// redemptionStatus is what `redemption(id)` says: ISSUED, FAILED, PENDING, or "" for null.
// FAILED without a failureReason and ISSUED without a coupon come back as "FAILED-noreason" and "ISSUED-nocoupon".
func (c *gqlClient) redemptionStatus(ctx context.Context, token, id string) (string, error) {
	var out struct {
		Redemption *struct {
			Status        string
			FailureReason *string
			Coupon        *struct{ Code string }
		} `json:"redemption"`
	}
	if err := c.do(ctx, 5*time.Second, token, redemptionQuery, map[string]any{"id": id}, &out); err != nil {
		return "", err
	}
	r := out.Redemption
	switch {
	case r == nil:
		return "", nil
	case r.Status == "FAILED" && (r.FailureReason == nil || *r.FailureReason == ""):
		return "FAILED-noreason", nil
	case r.Status == "ISSUED" && r.Coupon == nil:
		return "ISSUED-nocoupon", nil
	}
	return r.Status, nil
}
