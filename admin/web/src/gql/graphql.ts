/* eslint-disable */
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
export type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
export type MakeOptional<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]?: Maybe<T[SubKey]> };
export type MakeMaybe<T, K extends keyof T> = Omit<T, K> & { [SubKey in K]: Maybe<T[SubKey]> };
export type MakeEmpty<T extends { [key: string]: unknown }, K extends keyof T> = { [_ in K]?: never };
export type Incremental<T> = T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** Money: a decimal string with 2 decimals, e.g. "12.50". */
  Decimal: { input: string; output: string; }
  /** An RFC 3339 time, e.g. "2026-01-01T00:00:00Z". */
  Time: { input: string; output: string; }
  /**
   * A file sent with the GraphQL multipart request spec (multipart/form-data: operations, map, the
   * file parts). Such a request must carry a non-simple header, `Apollo-Require-Preflight: true` or
   * `X-Apollo-Operation-Name`, as Apollo Server requires against CSRF.
   */
  Upload: { input: File; output: File; }
};

/** Which task to cancel. */
export type CancelCouponTaskInput = {
  /** The task's id. */
  taskId: Scalars['ID']['input'];
};

/** Which reminder to cancel. */
export type CancelReminderInput = {
  /** The channel. */
  channel: ReminderChannel;
  /** The template. */
  templateId: Scalars['ID']['input'];
};

/** The order system's word that an order was paid. */
export type ConfirmCouponPaymentInput = {
  /** The coupon. */
  couponId: Scalars['ID']['input'];
  /** The order's amount as the order system charged it: must be the locked order's amount. */
  orderAmount: Scalars['Decimal']['input'];
  /** The order. */
  orderId: Scalars['ID']['input'];
};

/** The best set of coupons for an order. */
export type CouponCombination = {
  __typename?: 'CouponCombination';
  /** Shop coupons (by shop), then the platform coupon with its discount on what they leave. */
  coupons: Array<CouponQuote>;
  /** What they take off in all. */
  discount: Scalars['Decimal']['output'];
  /** What is left to pay. */
  payable: Scalars['Decimal']['output'];
};

/** How a user got a coupon. */
export type CouponOrigin =
  /** Claimed by the user (redeemCoupon). */
  | 'CLAIM'
  /** Pushed to the user by the shop (a distribution task). */
  | 'DISTRIBUTION';

/** What one coupon does for an order. */
export type CouponQuote = {
  __typename?: 'CouponQuote';
  /** Whether it applies to the order. */
  applicable: Scalars['Boolean']['output'];
  /** Why it does not apply (null when it does). */
  code?: Maybe<ErrorCode>;
  /** The coupon. */
  coupon: UserCoupon;
  /** What it takes off (0.00 when it does not apply). */
  discount: Scalars['Decimal']['output'];
  /** The same, for people (null when it applies). */
  reason?: Maybe<Scalars['String']['output']>;
};

/** Who funds a coupon. */
export type CouponSource =
  /** The platform. */
  | 'PLATFORM'
  /** The shop: valid in that shop. */
  | 'SHOP';

/** A bulk distribution of one template to the users listed in an uploaded file. */
export type CouponTask = Node & {
  __typename?: 'CouponTask';
  /** When it ended (SUCCESS, FAILED, or CANCELED and stopped). */
  completedAt?: Maybe<Scalars['Time']['output']>;
  /** When the task was created. */
  createdAt: Scalars['Time']['output'];
  /** Rows that did not (see failures). */
  failCount: Scalars['Int']['output'];
  /** The task's failed rows counted by code, one entry per code, the largest count first (ties: by code). */
  failureCounts: Array<FailureCount>;
  /** Why a FAILED task could not run. */
  failureReason?: Maybe<Scalars['String']['output']>;
  /**
   * Where to GET the failure report (.xlsx: row, userId, code, reason) with the merchant's bearer
   * token; null while the task has no failures.
   */
  failureReportUrl?: Maybe<Scalars['String']['output']>;
  /** The rows that did not become a coupon, in row order. */
  failures: CouponTaskFailureConnection;
  /** The uploaded file's name, as the merchant's computer called it. */
  fileName: Scalars['String']['output'];
  /** The task's id (a decimal string). */
  id: Scalars['ID']['output'];
  /** The task's name. */
  name: Scalars['String']['output'];
  /** Data rows done so far (issued or failed). */
  processedRows: Scalars['Int']['output'];
  /** Data rows in the file (blank rows and a header not counted); null until counted. */
  sendNum?: Maybe<Scalars['Int']['output']>;
  /** When a SCHEDULED task starts. */
  sendTime?: Maybe<Scalars['Time']['output']>;
  /** Whether it starts at once or at sendTime. */
  sendType: SendType;
  /** Where the task stands. */
  status: TaskStatus;
  /** Rows that became a coupon. */
  successCount: Scalars['Int']['output'];
  /** The template handed out. */
  template: CouponTemplate;
};


/** A bulk distribution of one template to the users listed in an uploaded file. */
export type CouponTaskFailuresArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

/** A page of tasks (Relay connection). */
export type CouponTaskConnection = {
  __typename?: 'CouponTaskConnection';
  /** The page's tasks, newest first. */
  edges: Array<CouponTaskEdge>;
  /** Whether more pages exist, and the cursors to get them. */
  pageInfo: PageInfo;
  /** How many tasks match, over all pages. */
  totalCount: Scalars['Int']['output'];
};

/** One task in a page of couponTasks. */
export type CouponTaskEdge = {
  __typename?: 'CouponTaskEdge';
  /** Where this edge stands, for after/before. */
  cursor: Scalars['String']['output'];
  /** The task. */
  node: CouponTask;
};

/** One row of a task's file that did not become a coupon. */
export type CouponTaskFailure = {
  __typename?: 'CouponTaskFailure';
  /** Why, for machines: OUT_OF_STOCK, LIMIT_REACHED, DUPLICATE_IN_FILE, INVALID_USER_ID, TEMPLATE_ENDED. */
  code: Scalars['String']['output'];
  /** Why, for people. */
  reason: Scalars['String']['output'];
  /** The row number as the spreadsheet shows it (a header is row 1); for a CSV file, the line number. */
  rowNum: Scalars['Int']['output'];
  /** The user id as written (null when the cell was empty). */
  userId?: Maybe<Scalars['String']['output']>;
};

/** A page of a task's failures (Relay connection). */
export type CouponTaskFailureConnection = {
  __typename?: 'CouponTaskFailureConnection';
  /** The page's failures, in row order. */
  edges: Array<CouponTaskFailureEdge>;
  /** Whether more pages exist, and the cursors to get them. */
  pageInfo: PageInfo;
  /** How many rows failed, over all pages. */
  totalCount: Scalars['Int']['output'];
};

/** One failure in a page of failures. */
export type CouponTaskFailureEdge = {
  __typename?: 'CouponTaskFailureEdge';
  /** Where this edge stands, for after. */
  cursor: Scalars['String']['output'];
  /** The failure. */
  node: CouponTaskFailure;
};

/** Narrows couponTasks. */
export type CouponTaskFilter = {
  /** Only tasks in this status. */
  status?: InputMaybe<TaskStatus>;
  /** Only tasks of this template. */
  templateId?: InputMaybe<Scalars['ID']['input']>;
};

/** What a task mutation answers: the task, or why the mutation was refused. */
export type CouponTaskPayload = {
  __typename?: 'CouponTaskPayload';
  /** The task as it stands after the mutation; null when refused. */
  task?: Maybe<CouponTask>;
  /** Why the mutation was refused (empty when it succeeded). */
  userErrors: Array<UserError>;
};

/** A shop's kind of coupon: its discount, validity, stock and per-user limit. */
export type CouponTemplate = Node & {
  __typename?: 'CouponTemplate';
  /** When the template was created. */
  createdAt: Scalars['Time']['output'];
  /** FIXED_OFF and THRESHOLD_OFF: the amount taken off. */
  discountAmount?: Maybe<Scalars['Decimal']['output']>;
  /** PERCENT_OFF: the share of the price paid (0.85: 15% off). */
  discountRate?: Maybe<Scalars['Decimal']['output']>;
  /** The goods the coupon applies to (target PRODUCT). */
  goods?: Maybe<Scalars['String']['output']>;
  /** The template's id (a decimal string). */
  id: Scalars['ID']['output'];
  /** How many coupons one user may claim. */
  limitPerPerson: Scalars['Int']['output'];
  /** PERCENT_OFF: the largest amount taken off, when capped. */
  maxDiscountAmount?: Maybe<Scalars['Decimal']['output']>;
  /** Shown to users. */
  name: Scalars['String']['output'];
  /** What happens to a used coupon when its order is refunded. */
  refundPolicy: RefundPolicy;
  /** The shop that owns the template; null for a PLATFORM-source template, which belongs to no shop. */
  shopNumber?: Maybe<Scalars['String']['output']>;
  /** Who funds the coupon. */
  source: CouponSource;
  /**
   * The template's numbers over the stats days that [from, to) touches, as templateStats answers
   * them; null unless the caller is a merchant of the template's shop or the platform. The stats of
   * a page of templates are read together: a constant number of queries, whatever the page's size.
   */
  stats?: Maybe<TemplateStats>;
  /** Where the template stands now. */
  status: TemplateStatus;
  /** Remaining stock: the live (Redis) figure when the template is cached, else the database's. */
  stock: Scalars['Int']['output'];
  /** How many Redis sub-stocks the stock is split into (1: one stock). */
  stockShards: Scalars['Int']['output'];
  /** What the coupon applies to. */
  target: DiscountTarget;
  /** THRESHOLD_OFF: the order amount from which the discount applies. */
  thresholdAmount?: Maybe<Scalars['Decimal']['output']>;
  /** Stock ever made available: the initial stock plus every increase. */
  totalStock: Scalars['Int']['output'];
  /** How the discount is computed. */
  type: DiscountType;
  /** Free text shown with the coupon. */
  usageInstructions?: Maybe<Scalars['String']['output']>;
  /** When claiming closes. */
  validEndTime: Scalars['Time']['output'];
  /** When claiming opens. */
  validStartTime: Scalars['Time']['output'];
  /** When set, a claimed coupon ends this many hours after the claim instead of at validEndTime. */
  validityHours?: Maybe<Scalars['Int']['output']>;
};


/** A shop's kind of coupon: its discount, validity, stock and per-user limit. */
export type CouponTemplateStatsArgs = {
  from?: InputMaybe<Scalars['Time']['input']>;
  to?: InputMaybe<Scalars['Time']['input']>;
};

/** A page of templates (Relay connection). */
export type CouponTemplateConnection = {
  __typename?: 'CouponTemplateConnection';
  /** The page's templates, newest first. */
  edges: Array<CouponTemplateEdge>;
  /** Whether more pages exist, and the cursors to get them. */
  pageInfo: PageInfo;
  /** How many templates match, over all pages. */
  totalCount: Scalars['Int']['output'];
};

/** One template in a page of couponTemplates. */
export type CouponTemplateEdge = {
  __typename?: 'CouponTemplateEdge';
  /** Where this edge stands, for after/before. */
  cursor: Scalars['String']['output'];
  /** The template. */
  node: CouponTemplate;
};

/** Narrows couponTemplates; every field set must match. */
export type CouponTemplateFilter = {
  /** Case-insensitive substring of the name. */
  nameContains?: InputMaybe<Scalars['String']['input']>;
  /** PLATFORM only: restrict to one shop. Ignored for merchants, who always see their own shop. */
  shopNumber?: InputMaybe<Scalars['String']['input']>;
  /** Only templates of this source. */
  source?: InputMaybe<CouponSource>;
  /** Only templates with this status now. */
  status?: InputMaybe<TemplateStatus>;
  /** Only templates of this discount type. */
  type?: InputMaybe<DiscountType>;
};

/** What a template mutation answers: the template, or why the mutation was refused. */
export type CouponTemplatePayload = {
  __typename?: 'CouponTemplatePayload';
  /** The template as it stands after the mutation; null when refused. */
  template?: Maybe<CouponTemplate>;
  /** Why the mutation was refused (empty when it succeeded). */
  userErrors: Array<UserError>;
};

/** A new distribution task. */
export type CreateCouponTaskInput = {
  /** The spreadsheet: .xlsx or UTF-8 .csv (with or without BOM), one user id per row. */
  file: Scalars['Upload']['input'];
  /** A name for the task, 1 to 128 characters. */
  name: Scalars['String']['input'];
  /** SCHEDULED: when to start (in the future, before the template ends). IMMEDIATE: leave it out. */
  sendTime?: InputMaybe<Scalars['Time']['input']>;
  /** Start at once, or at sendTime. */
  sendType: SendType;
  /** The worksheet to read (.xlsx); default the first. */
  sheet?: InputMaybe<Scalars['String']['input']>;
  /** One of the merchant's templates. */
  templateId: Scalars['ID']['input'];
};

/** A new template. Which discount fields apply depends on type; a field that does not apply is an error. */
export type CreateCouponTemplateInput = {
  /** FIXED_OFF and THRESHOLD_OFF: the amount taken off (THRESHOLD_OFF: less than thresholdAmount). */
  discountAmount?: InputMaybe<Scalars['Decimal']['input']>;
  /** PERCENT_OFF: the share of the price paid, strictly between 0 and 1 (0.85: 15% off), at most 4 decimals. */
  discountRate?: InputMaybe<Scalars['Decimal']['input']>;
  /** Required when target is PRODUCT: the goods the coupon applies to. */
  goods?: InputMaybe<Scalars['String']['input']>;
  /** How many coupons one user may claim: 1 to stock. */
  limitPerPerson: Scalars['Int']['input'];
  /** PERCENT_OFF: the largest amount taken off (optional). */
  maxDiscountAmount?: InputMaybe<Scalars['Decimal']['input']>;
  /** Shown to users: 1 to 64 characters. */
  name: Scalars['String']['input'];
  /** What happens to a used coupon when its order is refunded (default RETURN). */
  refundPolicy?: InputMaybe<RefundPolicy>;
  /** Who funds the coupon. */
  source: CouponSource;
  /** How many coupons can be claimed: 1 to 10,000,000. */
  stock: Scalars['Int']['input'];
  /**
   * Splits the Redis stock into 1 to 64 sub-stocks, each on its own slot of a Redis Cluster, so one hot
   * template's claims spread over several Redis cores (default: the server's COUPON_STOCK_SHARDS_DEFAULT,
   * itself 1). Cannot be changed later.
   */
  stockShards?: InputMaybe<Scalars['Int']['input']>;
  /** What the coupon applies to. */
  target: DiscountTarget;
  /** THRESHOLD_OFF: the order amount from which the discount applies. */
  thresholdAmount?: InputMaybe<Scalars['Decimal']['input']>;
  /** How the discount is computed. */
  type: DiscountType;
  /** Free text shown with the coupon: at most 500 characters. */
  usageInstructions?: InputMaybe<Scalars['String']['input']>;
  /** When claiming closes (and, without validityHours, when the coupons end); after validStartTime and in the future. */
  validEndTime: Scalars['Time']['input'];
  /** When claiming opens. */
  validStartTime: Scalars['Time']['input'];
  /** When set, a claimed coupon ends this many hours after the claim (1 to 43,800) instead of at validEndTime. */
  validityHours?: InputMaybe<Scalars['Int']['input']>;
};

/** A new reminder (or a new time for an existing one). */
export type CreateReminderInput = {
  /** How to be told. */
  channel: ReminderChannel;
  /** How long before the window opens: 1 to 10080 minutes (a week); the reminder must be due in the future. */
  minutesBefore: Scalars['Int']['input'];
  /** A template whose claim window has not opened yet. */
  templateId: Scalars['ID']['input'];
};

/**
 * One stats day (date YYYY-MM-DD in COUPON_STATS_TIMEZONE): coupons issued, payments with a coupon
 * (used, net of refunds) and their discount, refunds of such payments, coupons expired: each on the
 * day it happened, a refund on the day of its payment (which it leaves), so the days sum to the totals.
 */
export type DailyStat = {
  __typename?: 'DailyStat';
  /** The day, YYYY-MM-DD in COUPON_STATS_TIMEZONE. */
  date: Scalars['String']['output'];
  /** Discount given by those payments. */
  discount: Scalars['Decimal']['output'];
  /** Coupons that expired unused that day. */
  expired: Scalars['Int']['output'];
  /** Coupons issued that day. */
  issued: Scalars['Int']['output'];
  /** Payments with a coupon that day that were refunded since. */
  refunded: Scalars['Int']['output'];
  /** Payments with a coupon that day, not refunded since. */
  used: Scalars['Int']['output'];
};

/** What a coupon applies to. */
export type DiscountTarget =
  /** The goods named by the template. */
  | 'PRODUCT'
  /** Everything the shop sells. */
  | 'SHOP_WIDE';

/** How a discount is computed. */
export type DiscountType =
  /** A fixed amount off (discountAmount). */
  | 'FIXED_OFF'
  /** A share of the price (discountRate), optionally capped (maxDiscountAmount). */
  | 'PERCENT_OFF'
  /** A fixed amount off orders from a threshold (discountAmount from thresholdAmount). */
  | 'THRESHOLD_OFF';

/** Codes of userErrors: business outcomes. */
export type ErrorCode =
  /** The coupon is held by another order. */
  | 'ALREADY_LOCKED'
  /** The amount the order system charged is not the locked order's amount. */
  | 'AMOUNT_MISMATCH'
  /** The template has ended. */
  | 'ENDED'
  /** The coupon is past its end. */
  | 'EXPIRED'
  /** The uploaded file cannot be read. */
  | 'FILE_INVALID'
  /** The input breaks a rule (field names it). */
  | 'INVALID_INPUT'
  /** The object is not in a state that allows this. */
  | 'INVALID_STATE'
  /** The user holds limitPerPerson coupons of the template already. */
  | 'LIMIT_REACHED'
  /** The coupon does not apply to this order. */
  | 'NOT_APPLICABLE'
  /** No such object, or not one the caller may see. */
  | 'NOT_FOUND'
  /** The coupon is another user's. */
  | 'NOT_OWNER'
  /** The template's validStartTime is ahead. */
  | 'NOT_STARTED'
  /** The template has no stock left. */
  | 'OUT_OF_STOCK'
  /** Too many attempts: retry later. */
  | 'RATE_LIMITED'
  /** The order amount is below the coupon's threshold. */
  | 'THRESHOLD_NOT_MET'
  /** A claim taken but not yet acknowledged by the storage's replicas: retry with the same requestId. */
  | 'UNCONFIRMED';

/** How many of a task's rows failed with one code. */
export type FailureCount = {
  __typename?: 'FailureCount';
  /** The code, as CouponTaskFailure.code. */
  code: Scalars['String']['output'];
  /** The rows that failed with it. */
  count: Scalars['Int']['output'];
};

/** Which template gets more stock. */
export type IncreaseStockInput = {
  /** How many coupons to add: at least 1. */
  amount: Scalars['Int']['input'];
  /** One of the merchant's templates. */
  templateId: Scalars['ID']['input'];
};

/** Coupons issued, by how they were issued. */
export type IssuedByOrigin = {
  __typename?: 'IssuedByOrigin';
  /** Claimed by users (redeemCoupon). */
  claim: Scalars['Int']['output'];
  /** Issued by a merchant's distribution task. */
  distribution: Scalars['Int']['output'];
};

/** Which coupon to hold for which order. */
export type LockCouponInput = {
  /** The coupon: the caller's own (USER), any user's (SERVICE). */
  couponId: Scalars['ID']['input'];
  /** The order. */
  order: OrderInput;
};

/** The mutations. */
export type Mutation = {
  __typename?: 'Mutation';
  /**
   * Cancel a task: a PENDING one at once, an IN_PROGRESS one at its next batch boundary (the batch
   * under way finishes; counts stay exact; completedAt is set when it has stopped). Other statuses:
   * INVALID_STATE.
   */
  cancelCouponTask: CouponTaskPayload;
  /**
   * Cancel the caller's reminder of a template on a channel: a PENDING one is not sent. Cancelling
   * again, or a reminder already sent, answers it as it stands. userErrors: NOT_FOUND (no such reminder).
   */
  cancelReminder: ReminderPayload;
  /**
   * The order is paid, as the order system says (SERVICE only: the app cannot pay its own orders):
   * the coupon is USED. An orderAmount other than the locked order's is AMOUNT_MISMATCH and the
   * settlement stays LOCKED. After the lock expired: EXPIRED or INVALID_STATE. Idempotent.
   */
  confirmCouponPayment: SettlementPayload;
  /**
   * Upload a spreadsheet (.xlsx, or UTF-8 .csv; told by content, not by name; at most
   * COUPON_UPLOAD_MAX_BYTES) and create a task that gives every listed user one coupon of one of the
   * merchant's templates, with the template's stock and per-person limit. A file that cannot be read,
   * or has no user-id column (header userId, user_id or 用户ID; else column A), is FILE_INVALID and no
   * task is created.
   */
  createCouponTask: CouponTaskPayload;
  /**
   * Create a template: a merchant creates SHOP-source templates for its shop, the platform PLATFORM-source
   * ones (valid in every shop); invalid input comes back as userErrors naming every broken rule.
   */
  createCouponTemplate: CouponTemplatePayload;
  /**
   * Ask to be told minutesBefore minutes before a template's claim window opens (one reminder per
   * template and channel; creating it again sets it anew, also after a cancel). userErrors:
   * INVALID_INPUT (minutesBefore outside 1…10080, or the reminder would be due in the past),
   * NOT_FOUND (no such template), ENDED (the template ended or was terminated), INVALID_STATE (its
   * window has already opened).
   */
  createReminder: ReminderPayload;
  /**
   * Add stock to a template (total and remaining stock grow by the amount): a merchant to its shop's
   * SHOP templates, the platform to any. Another shop's or a PLATFORM template is NOT_FOUND to a
   * merchant, as an unknown id.
   */
  increaseCouponTemplateStock: CouponTemplatePayload;
  /**
   * Hold a coupon for an order until it is paid, released, or the lock expires (COUPON_LOCK_TTL): a
   * USER's own coupon, or for the order system (SERVICE) any user's coupon named by couponId. The
   * discount is computed here. userErrors: NOT_FOUND, ALREADY_LOCKED (another order holds it),
   * EXPIRED, NOT_STARTED, NOT_APPLICABLE, THRESHOLD_NOT_MET, INVALID_STATE, INVALID_INPUT. A repeat
   * for the same order answers the same settlement.
   */
  lockCoupon: SettlementPayload;
  /**
   * Claim one coupon. Accepted: redemption is set (PENDING in async mode, ISSUED with the coupon in
   * sync mode). Refused: userErrors has one of OUT_OF_STOCK, LIMIT_REACHED, NOT_STARTED, ENDED,
   * NOT_FOUND, RATE_LIMITED. The same requestId always gets the first answer (RATE_LIMITED is not
   * remembered, so a retry after it can succeed). UNCONFIRMED (only when the server requires replica
   * acknowledgements): the claim was taken but not yet confirmed; a retry with the same requestId
   * answers it.
   */
  redeemCoupon: RedeemCouponPayload;
  /**
   * The paid order was refunded, as the order system says (SERVICE only): with the template's RETURN
   * policy the coupon is UNUSED again (EXPIRED past its end), with FORFEIT it stays USED. Idempotent.
   */
  refundCoupon: SettlementPayload;
  /** The order gives the coupon back unpaid (the coupon's USER or the order system): it is UNUSED again (EXPIRED past its end). Idempotent. */
  releaseCoupon: SettlementPayload;
  /**
   * End a template now: no claim succeeds afterwards. Ending an ended template changes nothing. A
   * merchant ends its shop's SHOP templates, the platform any (NOT_FOUND as for increaseCouponTemplateStock).
   */
  terminateCouponTemplate: CouponTemplatePayload;
};


/** The mutations. */
export type MutationCancelCouponTaskArgs = {
  input: CancelCouponTaskInput;
};


/** The mutations. */
export type MutationCancelReminderArgs = {
  input: CancelReminderInput;
};


/** The mutations. */
export type MutationConfirmCouponPaymentArgs = {
  input: ConfirmCouponPaymentInput;
};


/** The mutations. */
export type MutationCreateCouponTaskArgs = {
  input: CreateCouponTaskInput;
};


/** The mutations. */
export type MutationCreateCouponTemplateArgs = {
  input: CreateCouponTemplateInput;
};


/** The mutations. */
export type MutationCreateReminderArgs = {
  input: CreateReminderInput;
};


/** The mutations. */
export type MutationIncreaseCouponTemplateStockArgs = {
  input: IncreaseStockInput;
};


/** The mutations. */
export type MutationLockCouponArgs = {
  input: LockCouponInput;
};


/** The mutations. */
export type MutationRedeemCouponArgs = {
  input: RedeemCouponInput;
};


/** The mutations. */
export type MutationRefundCouponArgs = {
  input: SettlementRefInput;
};


/** The mutations. */
export type MutationReleaseCouponArgs = {
  input: SettlementRefInput;
};


/** The mutations. */
export type MutationTerminateCouponTemplateArgs = {
  input: TerminateCouponTemplateInput;
};

/**
 * An object that `node(id:)` can fetch again by its id. Ids are the API's own: decimal strings of
 * 64-bit ids for templates and coupons, "<templateId>-<n>" for redemptions; they are unique across
 * types.
 */
export type Node = {
  /** The object's id, unique across all types. */
  id: Scalars['ID']['output'];
};

/** An order as the checkout prices it. Money has at most 2 decimals. */
export type OrderInput = {
  /** The whole order; when items are given they must add up to it. */
  amount: Scalars['Decimal']['input'];
  /** The order's lines (at most 500); PRODUCT coupons need them. */
  items?: InputMaybe<Array<OrderItemInput>>;
  /** The order's id. */
  orderId: Scalars['ID']['input'];
  /** The order's shop; items may name their own (a multi-shop cart). */
  shopNumber?: InputMaybe<Scalars['String']['input']>;
};

/** One line of an order. */
export type OrderItemInput = {
  /** The line's amount. */
  amount: Scalars['Decimal']['input'];
  /** The goods, as templates name them. */
  goods: Scalars['String']['input'];
  /** The line's shop when it is not the order's. */
  shopNumber?: InputMaybe<Scalars['String']['input']>;
};

/** Where a page stands in its connection (Relay cursor connections spec). */
export type PageInfo = {
  __typename?: 'PageInfo';
  /** The last edge's cursor (null when the page is empty). */
  endCursor?: Maybe<Scalars['String']['output']>;
  /** Paging forward (first): whether edges follow this page. Paging backward: false. */
  hasNextPage: Scalars['Boolean']['output'];
  /** Paging backward (last): whether edges precede this page. Paging forward: false. */
  hasPreviousPage: Scalars['Boolean']['output'];
  /** The first edge's cursor (null when the page is empty). */
  startCursor?: Maybe<Scalars['String']['output']>;
};

/** The queries. */
export type Query = {
  __typename?: 'Query';
  /**
   * Every UNUSED or LOCKED coupon of the caller weighed against the order: the applicable ones first,
   * best discount first (ties: the one that expires first), each with the discount it alone gives;
   * then the others, each with a code and a reason (THRESHOLD_NOT_MET says how much is missing,
   * NOT_APPLICABLE for goods or shop, EXPIRED, NOT_STARTED, ALREADY_LOCKED by another order).
   */
  applicableCoupons: Array<CouponQuote>;
  /**
   * The caller's set of coupons that takes the most off the order under the stacking rule: at most one
   * SHOP coupon per shop and one PLATFORM coupon, whose threshold and discount are measured on what
   * the shop coupons leave.
   */
  bestCouponCombination: CouponCombination;
  /** One of the merchant's distribution tasks (the platform: any shop's); null for an unknown id or another shop's. */
  couponTask?: Maybe<CouponTask>;
  /**
   * The merchant's distribution tasks (the platform: every shop's, or one shop's by shopNumber),
   * newest first. Page forward with first/after (default: the first 20).
   */
  couponTasks: CouponTaskConnection;
  /** Anyone may look a template up; a merchant sees only its own shop's SHOP templates (another shop's or a PLATFORM template's id gives null). */
  couponTemplate?: Maybe<CouponTemplate>;
  /**
   * The caller's templates (merchant: its shop; platform: all, or one shop by filter), newest first.
   * Page forward with first/after (default: the first 20).
   */
  couponTemplates: CouponTemplateConnection;
  /**
   * The caller's coupons, newest first; status filters as the user sees it (an unused coupon past its
   * end is EXPIRED). Page forward with first/after (default: the first 20).
   */
  myCoupons: UserCouponConnection;
  /** The caller's reminders, every status, newest first. Page forward with first/after (default: the first 20). */
  myReminders: ReminderConnection;
  /**
   * The object with this id, as the caller may see it: a template (see couponTemplate), the
   * caller's own coupon or redemption (USER callers), or a distribution task (see couponTask). Null
   * for an unknown id or one the caller may not see; a malformed id is BAD_USER_INPUT.
   */
  node?: Maybe<Node>;
  /**
   * Whether the template's books balance now, in Redis and in MySQL: total = remaining + issued +
   * pending in each store, and both stores' totals agree. Read-only: a drift is reported, never
   * repaired. The periodic reconciliation also compares users' claim counters and records each new
   * drift in the template's log (action RECONCILE_DRIFT). While the outbox holds more than 5,000
   * claims (a sale in full swing) the Redis equation is not read: balanced then speaks for MySQL and
   * the totals only. Another shop's template is NOT_FOUND.
   */
  reconciliation: Reconciliation;
  /** Where one of the caller's claims stands; another user's or an unknown id gives null. */
  redemption?: Maybe<Redemption>;
  /**
   * Totals over a shop's templates over the days [from, to) touches (as templateStats), and its top 10
   * templates by issued and by used. A merchant may omit shopNumber (its own) and may ask for no
   * other shop (FORBIDDEN); the platform names the shop.
   */
  shopStats: ShopStats;
  /**
   * The template's audit trail, newest first: every change of the template or its stock by a
   * merchant, the platform or the system (drift records, distribution tasks). Another shop's template
   * is NOT_FOUND.
   */
  templateLog: TemplateLogConnection;
  /**
   * A template's funnel over the stats days that [from, to) touches (days in the server's
   * COUPON_STATS_TIMEZONE; from defaults to the template's creation, to to the end of today; at most
   * COUPON_STATS_MAX_DAYS days), with its live stock and locks. Served from counters: its cost grows
   * with the days asked for, not with the coupons. Another shop's template, or a PLATFORM one, answers
   * a merchant NOT_FOUND, as a missing id does.
   */
  templateStats: TemplateStats;
  /** The caller as its token says, with the server's settings it works under; null without a token. */
  viewer?: Maybe<Viewer>;
};


/** The queries. */
export type QueryApplicableCouponsArgs = {
  order: OrderInput;
};


/** The queries. */
export type QueryBestCouponCombinationArgs = {
  order: OrderInput;
};


/** The queries. */
export type QueryCouponTaskArgs = {
  id: Scalars['ID']['input'];
};


/** The queries. */
export type QueryCouponTasksArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<CouponTaskFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
  shopNumber?: InputMaybe<Scalars['String']['input']>;
};


/** The queries. */
export type QueryCouponTemplateArgs = {
  id: Scalars['ID']['input'];
};


/** The queries. */
export type QueryCouponTemplatesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<CouponTemplateFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
};


/** The queries. */
export type QueryMyCouponsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  includeArchived?: InputMaybe<Scalars['Boolean']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
  status?: InputMaybe<UserCouponStatus>;
};


/** The queries. */
export type QueryMyRemindersArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};


/** The queries. */
export type QueryNodeArgs = {
  id: Scalars['ID']['input'];
};


/** The queries. */
export type QueryReconciliationArgs = {
  templateId: Scalars['ID']['input'];
};


/** The queries. */
export type QueryRedemptionArgs = {
  id: Scalars['ID']['input'];
};


/** The queries. */
export type QueryShopStatsArgs = {
  from?: InputMaybe<Scalars['Time']['input']>;
  shopNumber?: InputMaybe<Scalars['String']['input']>;
  to?: InputMaybe<Scalars['Time']['input']>;
};


/** The queries. */
export type QueryTemplateLogArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  templateId: Scalars['ID']['input'];
};


/** The queries. */
export type QueryTemplateStatsArgs = {
  from?: InputMaybe<Scalars['Time']['input']>;
  templateId: Scalars['ID']['input'];
  to?: InputMaybe<Scalars['Time']['input']>;
};

/** One template's books at one instant (reconciliation). */
export type Reconciliation = {
  __typename?: 'Reconciliation';
  /** No equation is broken. */
  balanced: Scalars['Boolean']['output'];
  /** When the books were read. */
  checkedAt: Scalars['Time']['output'];
  /** The remaining stock in MySQL. */
  dbStock: Scalars['Int']['output'];
  /** One readable line per broken equation; empty when balanced. */
  drift: Array<Scalars['String']['output']>;
  /** Claims Redis accepted and MySQL refused (FAILED redemptions). */
  failed: Scalars['Int']['output'];
  /** The template's coupons in MySQL (claims and distribution, archived ones included). */
  issued: Scalars['Int']['output'];
  /**
   * Units Redis took that MySQL does not hold yet: claims in the outbox with neither a coupon
   * nor a given-back failure, and distribution rows in flight.
   */
  pending: Scalars['Int']['output'];
  /**
   * Whether the Redis equation was read: false when the outbox held more than 5,000 claims and it
   * was skipped (balanced then speaks for MySQL and the totals only). True for a template not cached
   * (redisStock null): there is nothing in Redis to compare.
   */
  redisChecked: Scalars['Boolean']['output'];
  /** The stock Redis shows; null when the template is not cached (nothing to compare). */
  redisStock?: Maybe<Scalars['Int']['output']>;
  /** The template. */
  templateId: Scalars['ID']['output'];
  /** The template's total stock (MySQL). */
  totalStock: Scalars['Int']['output'];
};

/** One claim. */
export type RedeemCouponInput = {
  /** Client idempotency key (1–64 of A-Z a-z 0-9 . _ : -), per user and template. */
  requestId?: InputMaybe<Scalars['String']['input']>;
  /** The template to claim a coupon of. */
  templateId: Scalars['ID']['input'];
};

/** What redeemCoupon answers: a redemption, or why the claim was refused. */
export type RedeemCouponPayload = {
  __typename?: 'RedeemCouponPayload';
  /** The accepted claim; null when refused. */
  redemption?: Maybe<Redemption>;
  /** Why the claim was refused (empty when accepted). */
  userErrors: Array<UserError>;
};

/** One accepted claim: where it stands. */
export type Redemption = Node & {
  __typename?: 'Redemption';
  /** Set when ISSUED. */
  coupon?: Maybe<UserCoupon>;
  /** Set when FAILED. */
  failureReason?: Maybe<Scalars['String']['output']>;
  /** The claim's id: "<templateId>-<n>". */
  id: Scalars['ID']['output'];
  /** Where the claim stands. */
  status: RedemptionStatus;
};

/** Where a claim stands. */
export type RedemptionStatus =
  /** Accepted, then given back (failureReason says why); the stock was returned. */
  | 'FAILED'
  /** The coupon is in the user's card bag. */
  | 'ISSUED'
  /** Accepted; the coupon is being recorded (async mode). */
  | 'PENDING';

/** What happens to a used coupon when its order is refunded. */
export type RefundPolicy =
  /** The coupon is lost. */
  | 'FORFEIT'
  /** The coupon goes back to the user's card bag. */
  | 'RETURN';

/** A user's reminder of one template on one channel. */
export type Reminder = {
  __typename?: 'Reminder';
  /** How the user is told. */
  channel: ReminderChannel;
  /** Why it was not delivered (FAILED, SKIPPED), or why the last attempt failed while it is retried. */
  failureReason?: Maybe<Scalars['String']['output']>;
  /** How long before the window opens. */
  minutesBefore: Scalars['Int']['output'];
  /** When the reminder is due: the template's validStartTime − minutesBefore. */
  remindAt: Scalars['Time']['output'];
  /** When it was delivered (SENT). */
  sentAt?: Maybe<Scalars['Time']['output']>;
  /** Where the reminder stands. */
  status: ReminderStatus;
  /** The template. */
  templateId: Scalars['ID']['output'];
};

/** How a reminder reaches the user. */
export type ReminderChannel =
  /** A push notification of the mobile app. */
  | 'APP'
  /** An email. */
  | 'EMAIL';

/** A page of the user's reminders (Relay connection). */
export type ReminderConnection = {
  __typename?: 'ReminderConnection';
  /** The page's reminders, newest first. */
  edges: Array<ReminderEdge>;
  /** Whether more pages exist, and the cursors to get them. */
  pageInfo: PageInfo;
  /** How many reminders the user has, over all pages. */
  totalCount: Scalars['Int']['output'];
};

/** One reminder in a page of myReminders. */
export type ReminderEdge = {
  __typename?: 'ReminderEdge';
  /** Where this edge stands, for after. */
  cursor: Scalars['String']['output'];
  /** The reminder. */
  node: Reminder;
};

/** What a reminder mutation answers: the reminder, or why the mutation was refused. */
export type ReminderPayload = {
  __typename?: 'ReminderPayload';
  /** The reminder as it stands after the mutation; null when refused. */
  reminder?: Maybe<Reminder>;
  /** Why the mutation was refused (empty when it succeeded). */
  userErrors: Array<UserError>;
};

/** Where a reminder stands. */
export type ReminderStatus =
  /** Cancelled by the user. */
  | 'CANCELED'
  /** Every delivery attempt failed (failureReason says why). */
  | 'FAILED'
  /** Waiting for remindAt, or retried after a failed delivery. */
  | 'PENDING'
  /** Delivered. */
  | 'SENT'
  /** Not sent: the template ended or was terminated first. */
  | 'SKIPPED';

/** Roles carried by the JWT's `role` claim. */
export type Role =
  /** A shop's staff: manages the shop's templates (the JWT's `shop` claim). */
  | 'MERCHANT'
  /** The platform's operators: see every shop; a PLATFORM token administers no shop (its `shop` claim is ignored). */
  | 'PLATFORM'
  /** The order system, server to server: confirms payments and refunds (the JWT's `sub` is the service's name, e.g. "orders"). */
  | 'SERVICE'
  /** A shopper: claims and spends coupons. */
  | 'USER';

/** When a task starts. */
export type SendType =
  /** As soon as it is created. */
  | 'IMMEDIATE'
  /** At sendTime. */
  | 'SCHEDULED';

/** Settings of the server a client works under (read from its configuration). */
export type ServerSettings = {
  __typename?: 'ServerSettings';
  /** How redeemCoupon answers: async (PENDING, then a redemption to poll) or sync (ISSUED with the coupon) (COUPON_REDEEM_MODE). */
  redeemMode: Scalars['String']['output'];
  /** The most days one statistics window may span (COUPON_STATS_MAX_DAYS). */
  statsMaxDays: Scalars['Int']['output'];
  /** The IANA time zone of statistics days (COUPON_STATS_TIMEZONE). */
  statsTimeZone: Scalars['String']['output'];
  /** The largest upload accepted, in bytes (COUPON_UPLOAD_MAX_BYTES). */
  uploadMaxBytes: Scalars['Int']['output'];
};

/** One coupon's use on one order. */
export type Settlement = {
  __typename?: 'Settlement';
  /** The coupon, as it stands. */
  coupon: UserCoupon;
  /** What the coupon takes off. */
  discount: Scalars['Decimal']['output'];
  /** The settlement's id. */
  id: Scalars['ID']['output'];
  /** When a LOCKED settlement is released unless paid. */
  lockExpiresAt?: Maybe<Scalars['Time']['output']>;
  /** The order's amount when locked. */
  orderAmount: Scalars['Decimal']['output'];
  /** The order. */
  orderId: Scalars['ID']['output'];
  /** When the payment was confirmed. */
  paidAt?: Maybe<Scalars['Time']['output']>;
  /** What was left to pay after this coupon (and the order's coupons locked before it). */
  payable: Scalars['Decimal']['output'];
  /** When the payment was refunded. */
  refundedAt?: Maybe<Scalars['Time']['output']>;
  /** Where the settlement stands. */
  status: SettlementStatus;
};

/** The result of a settlement mutation. */
export type SettlementPayload = {
  __typename?: 'SettlementPayload';
  /** The settlement as it stands; null when refused. */
  settlement?: Maybe<Settlement>;
  /** Why it was refused. */
  userErrors: Array<UserError>;
};

/** One coupon's settlement on one order. */
export type SettlementRefInput = {
  /** The coupon. */
  couponId: Scalars['ID']['input'];
  /** The order. */
  orderId: Scalars['ID']['input'];
};

/** Where a settlement stands. */
export type SettlementStatus =
  /** Released before payment (by the order or when the lock expired). */
  | 'CANCELED'
  /** The coupon is held for the order. */
  | 'LOCKED'
  /** The order is paid with the coupon. */
  | 'PAID'
  /** The paid order was refunded. */
  | 'REFUNDED';

/** A shop's totals over the days asked for (as TemplateStats) and its top 10 templates. */
export type ShopStats = {
  __typename?: 'ShopStats';
  /** One entry per day asked for, oldest first, summed over the shop's templates (the days sum to the totals). */
  daily: Array<DailyStat>;
  /** Discount given over the days asked for, less the discount refunded. */
  discountTotal: Scalars['Decimal']['output'];
  /** Coupons that expired unused over the days asked for. */
  expiredCount: Scalars['Int']['output'];
  /** Coupons issued over the days asked for, over all the shop's templates. */
  issuedCount: Scalars['Int']['output'];
  /** Coupons LOCKED for an unpaid order now, over all the shop's templates. */
  lockedCount: Scalars['Int']['output'];
  /** Refunds of payments with a coupon over the days asked for. */
  refundedCount: Scalars['Int']['output'];
  /** The shop. */
  shopNumber: Scalars['String']['output'];
  /** How many templates the shop has. */
  templates: Scalars['Int']['output'];
  /** The shop's 10 templates that issued the most over the days asked for. */
  topByIssued: Array<TemplateStats>;
  /** The shop's 10 templates used the most over the days asked for. */
  topByUsed: Array<TemplateStats>;
  /** Payments with a coupon over the days asked for, less their refunds. */
  usedCount: Scalars['Int']['output'];
};

/** The subscriptions (graphql-transport-ws, the protocol of the graphql-ws client, on /query). */
export type Subscription = {
  __typename?: 'Subscription';
  /**
   * The merchant's task now, then after each committed batch and each status change; completes
   * after sending the task once it is done (SUCCESS, FAILED, or CANCELED with completedAt).
   */
  couponTaskProgress: CouponTask;
};


/** The subscriptions (graphql-transport-ws, the protocol of the graphql-ws client, on /query). */
export type SubscriptionCouponTaskProgressArgs = {
  id: Scalars['ID']['input'];
};

/** Where a task stands. */
export type TaskStatus =
  /** Canceled by the merchant. */
  | 'CANCELED'
  /** The task could not run (failureReason says why). */
  | 'FAILED'
  /** Handing out coupons. */
  | 'IN_PROGRESS'
  /** Waiting for its start. */
  | 'PENDING'
  /** Every data row is accounted for: issued, or failed with a reason. */
  | 'SUCCESS';

/** A page of a template's audit trail (Relay connection). */
export type TemplateLogConnection = {
  __typename?: 'TemplateLogConnection';
  /** The page's entries, newest first. */
  edges: Array<TemplateLogEdge>;
  /** Whether more pages exist, and the cursors to get them. */
  pageInfo: PageInfo;
  /** How many entries the trail holds, over all pages. */
  totalCount: Scalars['Int']['output'];
};

/** One entry in a page of templateLog. */
export type TemplateLogEdge = {
  __typename?: 'TemplateLogEdge';
  /** Where this edge stands, for after. */
  cursor: Scalars['String']['output'];
  /** The entry. */
  node: TemplateLogEntry;
};

/** One entry of a template's audit trail. */
export type TemplateLogEntry = {
  __typename?: 'TemplateLogEntry';
  /** What: CREATE, INCREASE_STOCK, TERMINATE, STOCK_DRIFT, RECONCILE_DRIFT, RECONCILE_BALANCED, TASK_CREATE, TASK_CANCEL, TASK_END, CACHE_STOCK_DROPPED. */
  action: Scalars['String']['output'];
  /** Who: MERCHANT:<user>, PLATFORM:<user>, or SYSTEM. */
  actor: Scalars['String']['output'];
  /** The state after or what was found (a JSON object), when the action has one. */
  after?: Maybe<Scalars['String']['output']>;
  /** When. */
  at: Scalars['Time']['output'];
  /** The state before (a JSON object), when the action has one. */
  before?: Maybe<Scalars['String']['output']>;
};

/**
 * A template's numbers. Counts are of events over the days asked for, net of refunds: usedCount is
 * payments with a coupon not refunded since, discountTotal their discount (a refund leaves the day of
 * its payment, so the daily series sums to these totals), redeemRate
 * usedCount ÷ issuedCount (0 when nothing was issued). totalStock, remainingStock and lockedCount are
 * as they are now.
 */
export type TemplateStats = {
  __typename?: 'TemplateStats';
  /** One entry per day asked for, oldest first. */
  daily: Array<DailyStat>;
  /** Discount given over the days asked for, less the discount refunded. */
  discountTotal: Scalars['Decimal']['output'];
  /** Coupons that expired unused over the days asked for. */
  expiredCount: Scalars['Int']['output'];
  /** The issuedCount split by how the coupons were issued. */
  issuedByOrigin: IssuedByOrigin;
  /** Coupons issued over the days asked for, claims and distribution. */
  issuedCount: Scalars['Int']['output'];
  /** Coupons LOCKED for an unpaid order now. */
  lockedCount: Scalars['Int']['output'];
  /** The share of issued coupons used: usedCount ÷ issuedCount (0 when nothing was issued). */
  redeemRate: Scalars['Float']['output'];
  /** Refunds of payments with a coupon over the days asked for. */
  refundedCount: Scalars['Int']['output'];
  /** The stock left now (live). */
  remainingStock: Scalars['Int']['output'];
  /** The template. */
  templateId: Scalars['ID']['output'];
  /** The template's name. */
  templateName: Scalars['String']['output'];
  /** The template's total stock (initial stock plus increases). */
  totalStock: Scalars['Int']['output'];
  /** Payments with a coupon over the days asked for, less their refunds. */
  usedCount: Scalars['Int']['output'];
};

/** Where a template stands now. */
export type TemplateStatus =
  /** Claims are accepted while stock lasts. */
  | 'ACTIVE'
  /** Past validEndTime or terminated: claims are refused. */
  | 'ENDED'
  /** Before validStartTime: claims are refused. */
  | 'NOT_STARTED';

/** Which template to end. */
export type TerminateCouponTemplateInput = {
  /** One of the merchant's templates. */
  templateId: Scalars['ID']['input'];
};

/** A coupon in a user's card bag. */
export type UserCoupon = Node & {
  __typename?: 'UserCoupon';
  /** When the coupon was moved to the archive; null while it is in the hot table (see myCoupons(includeArchived)). */
  archivedAt?: Maybe<Scalars['Time']['output']>;
  /** Unguessable code shown at checkout. */
  code: Scalars['String']['output'];
  /** The coupon's id (a decimal string). */
  id: Scalars['ID']['output'];
  /** The order the coupon was spent on. */
  orderId?: Maybe<Scalars['ID']['output']>;
  /** 1-based: this is the user's nth coupon of the template. */
  receiveCount: Scalars['Int']['output'];
  /** When the coupon was claimed or distributed. */
  receivedAt: Scalars['Time']['output'];
  /** How the user got the coupon. */
  source: CouponOrigin;
  /** The coupon's status as the user sees it: an unused coupon past its end is EXPIRED. */
  status: UserCouponStatus;
  /** The template the coupon was issued from. */
  template: CouponTemplate;
  /** When the coupon was spent. */
  usedAt?: Maybe<Scalars['Time']['output']>;
  /** Until when the coupon can be spent. */
  validEndTime: Scalars['Time']['output'];
  /** From when the coupon can be spent. */
  validStartTime: Scalars['Time']['output'];
};

/** A page of the user's coupons (Relay connection). */
export type UserCouponConnection = {
  __typename?: 'UserCouponConnection';
  /** The page's coupons, newest first. */
  edges: Array<UserCouponEdge>;
  /** Whether more pages exist, and the cursors to get them. */
  pageInfo: PageInfo;
  /** How many coupons match, over all pages. */
  totalCount: Scalars['Int']['output'];
};

/** One coupon in a page of myCoupons. */
export type UserCouponEdge = {
  __typename?: 'UserCouponEdge';
  /** Where this edge stands, for after/before. */
  cursor: Scalars['String']['output'];
  /** The coupon. */
  node: UserCoupon;
};

/** Where a coupon stands, as the user sees it. */
export type UserCouponStatus =
  /** Past its end unused. */
  | 'EXPIRED'
  /** Held by an order being paid. */
  | 'LOCKED'
  /** Taken back by the shop or the platform. */
  | 'REVOKED'
  /** Can be spent. */
  | 'UNUSED'
  /** Spent on an order. */
  | 'USED';

/** A business outcome that refused a mutation, e.g. a broken rule of its input. */
export type UserError = {
  __typename?: 'UserError';
  /** What went wrong. */
  code: ErrorCode;
  /** The input field at fault, as a path (e.g. ["input", "stock"]), when one is. */
  field?: Maybe<Array<Scalars['String']['output']>>;
  /** For people: what went wrong and how to fix it. */
  message: Scalars['String']['output'];
};

/** The authenticated caller. */
export type Viewer = {
  __typename?: 'Viewer';
  /** When the token expires: a websocket is closed then, requests are refused after it. */
  expiresAt: Scalars['Time']['output'];
  /** The token's role. */
  role: Role;
  /** Settings of this server that clients work under. */
  settings: ServerSettings;
  /** The shop a MERCHANT administers; null for the other roles. */
  shopNumber?: Maybe<Scalars['String']['output']>;
  /** The token's subject: a person's user id, or a SERVICE's name. */
  userId: Scalars['ID']['output'];
};

export type ViewerQueryVariables = Exact<{ [key: string]: never; }>;


export type ViewerQuery = { __typename?: 'Query', viewer?: { __typename?: 'Viewer', role: Role, userId: string, shopNumber?: string | null, expiresAt: string, settings: { __typename?: 'ServerSettings', statsTimeZone: string, statsMaxDays: number, uploadMaxBytes: number, redeemMode: string } } | null };

export type CreateTemplateMutationVariables = Exact<{
  input: CreateCouponTemplateInput;
}>;


export type CreateTemplateMutation = { __typename?: 'Mutation', createCouponTemplate: { __typename?: 'CouponTemplatePayload', template?: { __typename?: 'CouponTemplate', id: string, name: string, status: TemplateStatus } | null, userErrors: Array<{ __typename?: 'UserError', code: ErrorCode, field?: Array<string> | null, message: string }> } };

export type DashboardQueryVariables = Exact<{
  shop?: InputMaybe<Scalars['String']['input']>;
  from?: InputMaybe<Scalars['Time']['input']>;
  to?: InputMaybe<Scalars['Time']['input']>;
}>;


export type DashboardQuery = { __typename?: 'Query', shopStats: { __typename?: 'ShopStats', shopNumber: string, templates: number, issuedCount: number, usedCount: number, discountTotal: string, lockedCount: number, expiredCount: number, refundedCount: number, daily: Array<{ __typename?: 'DailyStat', date: string, issued: number, used: number, discount: string }>, topByIssued: Array<{ __typename?: 'TemplateStats', templateId: string, templateName: string, issuedCount: number, usedCount: number, redeemRate: number, discountTotal: string }> }, notStarted: { __typename?: 'CouponTemplateConnection', totalCount: number }, active: { __typename?: 'CouponTemplateConnection', totalCount: number }, ended: { __typename?: 'CouponTemplateConnection', totalCount: number } };

export type OpenTemplatesQueryVariables = Exact<{
  shop?: InputMaybe<Scalars['String']['input']>;
}>;


export type OpenTemplatesQuery = { __typename?: 'Query', notStarted: { __typename?: 'CouponTemplateConnection', edges: Array<{ __typename?: 'CouponTemplateEdge', node: { __typename?: 'CouponTemplate', id: string, name: string } }> }, active: { __typename?: 'CouponTemplateConnection', edges: Array<{ __typename?: 'CouponTemplateEdge', node: { __typename?: 'CouponTemplate', id: string, name: string } }> } };

export type CreateTaskMutationVariables = Exact<{
  input: CreateCouponTaskInput;
}>;


export type CreateTaskMutation = { __typename?: 'Mutation', createCouponTask: { __typename?: 'CouponTaskPayload', task?: { __typename?: 'CouponTask', id: string, status: TaskStatus, sendNum?: number | null, processedRows: number, successCount: number, failCount: number } | null, userErrors: Array<{ __typename?: 'UserError', code: ErrorCode, field?: Array<string> | null, message: string }> } };

export type TaskViewQueryVariables = Exact<{
  id: Scalars['ID']['input'];
}>;


export type TaskViewQuery = { __typename?: 'Query', couponTask?: { __typename?: 'CouponTask', id: string, name: string, status: TaskStatus, sendType: SendType, processedRows: number, successCount: number, failCount: number, failureReportUrl?: string | null, failureReason?: string | null, fileName: string, createdAt: string, completedAt?: string | null, template: { __typename?: 'CouponTemplate', id: string, name: string }, failureCounts: Array<{ __typename?: 'FailureCount', code: string, count: number }>, failures: { __typename?: 'CouponTaskFailureConnection', totalCount: number, edges: Array<{ __typename?: 'CouponTaskFailureEdge', cursor: string, node: { __typename?: 'CouponTaskFailure', rowNum: number, userId?: string | null, code: string, reason: string } }> } } | null };

export type TaskProgressSubscriptionVariables = Exact<{
  id: Scalars['ID']['input'];
}>;


export type TaskProgressSubscription = { __typename?: 'Subscription', couponTaskProgress: { __typename?: 'CouponTask', id: string, status: TaskStatus, sendNum?: number | null, processedRows: number, successCount: number, failCount: number } };

export type CancelTaskMutationVariables = Exact<{
  input: CancelCouponTaskInput;
}>;


export type CancelTaskMutation = { __typename?: 'Mutation', cancelCouponTask: { __typename?: 'CouponTaskPayload', task?: { __typename?: 'CouponTask', id: string, status: TaskStatus } | null, userErrors: Array<{ __typename?: 'UserError', code: ErrorCode, field?: Array<string> | null, message: string }> } };

export type ReconciliationQueryVariables = Exact<{
  id: Scalars['ID']['input'];
}>;


export type ReconciliationQuery = { __typename?: 'Query', couponTemplate?: { __typename?: 'CouponTemplate', id: string, name: string } | null, reconciliation: { __typename?: 'Reconciliation', templateId: string, totalStock: number, redisStock?: number | null, dbStock: number, issued: number, pending: number, failed: number, balanced: boolean, drift: Array<string>, redisChecked: boolean, checkedAt: string } };

export type TasksQueryVariables = Exact<{
  shop?: InputMaybe<Scalars['String']['input']>;
}>;


export type TasksQuery = { __typename?: 'Query', couponTasks: { __typename?: 'CouponTaskConnection', totalCount: number, edges: Array<{ __typename?: 'CouponTaskEdge', node: { __typename?: 'CouponTask', id: string, name: string, status: TaskStatus, processedRows: number, successCount: number, failCount: number, createdAt: string, completedAt?: string | null, template: { __typename?: 'CouponTemplate', id: string, name: string } } }> } };

export type TemplateDetailQueryVariables = Exact<{
  id: Scalars['ID']['input'];
}>;


export type TemplateDetailQuery = { __typename?: 'Query', couponTemplate?: { __typename?: 'CouponTemplate', id: string, name: string, shopNumber?: string | null, source: CouponSource, type: DiscountType, target: DiscountTarget, goods?: string | null, status: TemplateStatus, stock: number, totalStock: number, limitPerPerson: number, validStartTime: string, validEndTime: string, validityHours?: number | null, refundPolicy: RefundPolicy, discountAmount?: string | null, discountRate?: string | null, thresholdAmount?: string | null, maxDiscountAmount?: string | null, createdAt: string, stats?: { __typename?: 'TemplateStats', totalStock: number, remainingStock: number, issuedCount: number, lockedCount: number, usedCount: number, expiredCount: number, refundedCount: number, discountTotal: string, redeemRate: number, issuedByOrigin: { __typename?: 'IssuedByOrigin', claim: number, distribution: number }, daily: Array<{ __typename?: 'DailyStat', date: string, issued: number, used: number, discount: string }> } | null } | null, templateLog: { __typename?: 'TemplateLogConnection', totalCount: number, edges: Array<{ __typename?: 'TemplateLogEdge', cursor: string, node: { __typename?: 'TemplateLogEntry', actor: string, action: string, at: string, before?: string | null, after?: string | null } }> } };

export type IncreaseStockMutationVariables = Exact<{
  input: IncreaseStockInput;
}>;


export type IncreaseStockMutation = { __typename?: 'Mutation', increaseCouponTemplateStock: { __typename?: 'CouponTemplatePayload', template?: { __typename?: 'CouponTemplate', id: string, stock: number, totalStock: number } | null, userErrors: Array<{ __typename?: 'UserError', code: ErrorCode, field?: Array<string> | null, message: string }> } };

export type TerminateMutationVariables = Exact<{
  input: TerminateCouponTemplateInput;
}>;


export type TerminateMutation = { __typename?: 'Mutation', terminateCouponTemplate: { __typename?: 'CouponTemplatePayload', template?: { __typename?: 'CouponTemplate', id: string, status: TemplateStatus, validEndTime: string } | null, userErrors: Array<{ __typename?: 'UserError', code: ErrorCode, field?: Array<string> | null, message: string }> } };

export type TemplatesQueryVariables = Exact<{
  first: Scalars['Int']['input'];
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<CouponTemplateFilter>;
}>;


export type TemplatesQuery = { __typename?: 'Query', couponTemplates: { __typename?: 'CouponTemplateConnection', totalCount: number, pageInfo: { __typename?: 'PageInfo', hasNextPage: boolean, endCursor?: string | null }, edges: Array<{ __typename?: 'CouponTemplateEdge', cursor: string, node: { __typename?: 'CouponTemplate', id: string, name: string, type: DiscountType, status: TemplateStatus, stock: number, totalStock: number, validStartTime: string, validEndTime: string, discountAmount?: string | null, discountRate?: string | null, thresholdAmount?: string | null, stats?: { __typename?: 'TemplateStats', issuedCount: number, usedCount: number, redeemRate: number, discountTotal: string } | null } }> } };


export const ViewerDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Viewer"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"viewer"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"role"}},{"kind":"Field","name":{"kind":"Name","value":"userId"}},{"kind":"Field","name":{"kind":"Name","value":"shopNumber"}},{"kind":"Field","name":{"kind":"Name","value":"expiresAt"}},{"kind":"Field","name":{"kind":"Name","value":"settings"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"statsTimeZone"}},{"kind":"Field","name":{"kind":"Name","value":"statsMaxDays"}},{"kind":"Field","name":{"kind":"Name","value":"uploadMaxBytes"}},{"kind":"Field","name":{"kind":"Name","value":"redeemMode"}}]}}]}}]}}]} as unknown as DocumentNode<ViewerQuery, ViewerQueryVariables>;
export const CreateTemplateDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CreateTemplate"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateCouponTemplateInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createCouponTemplate"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"template"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"status"}}]}},{"kind":"Field","name":{"kind":"Name","value":"userErrors"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<CreateTemplateMutation, CreateTemplateMutationVariables>;
export const DashboardDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Dashboard"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"shop"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"from"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Time"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"to"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"Time"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"shopStats"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"shopNumber"},"value":{"kind":"Variable","name":{"kind":"Name","value":"shop"}}},{"kind":"Argument","name":{"kind":"Name","value":"from"},"value":{"kind":"Variable","name":{"kind":"Name","value":"from"}}},{"kind":"Argument","name":{"kind":"Name","value":"to"},"value":{"kind":"Variable","name":{"kind":"Name","value":"to"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"shopNumber"}},{"kind":"Field","name":{"kind":"Name","value":"templates"}},{"kind":"Field","name":{"kind":"Name","value":"issuedCount"}},{"kind":"Field","name":{"kind":"Name","value":"usedCount"}},{"kind":"Field","name":{"kind":"Name","value":"discountTotal"}},{"kind":"Field","name":{"kind":"Name","value":"lockedCount"}},{"kind":"Field","name":{"kind":"Name","value":"expiredCount"}},{"kind":"Field","name":{"kind":"Name","value":"refundedCount"}},{"kind":"Field","name":{"kind":"Name","value":"daily"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"date"}},{"kind":"Field","name":{"kind":"Name","value":"issued"}},{"kind":"Field","name":{"kind":"Name","value":"used"}},{"kind":"Field","name":{"kind":"Name","value":"discount"}}]}},{"kind":"Field","name":{"kind":"Name","value":"topByIssued"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"templateId"}},{"kind":"Field","name":{"kind":"Name","value":"templateName"}},{"kind":"Field","name":{"kind":"Name","value":"issuedCount"}},{"kind":"Field","name":{"kind":"Name","value":"usedCount"}},{"kind":"Field","name":{"kind":"Name","value":"redeemRate"}},{"kind":"Field","name":{"kind":"Name","value":"discountTotal"}}]}}]}},{"kind":"Field","alias":{"kind":"Name","value":"notStarted"},"name":{"kind":"Name","value":"couponTemplates"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"1"}},{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"status"},"value":{"kind":"EnumValue","value":"NOT_STARTED"}},{"kind":"ObjectField","name":{"kind":"Name","value":"shopNumber"},"value":{"kind":"Variable","name":{"kind":"Name","value":"shop"}}}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}}]}},{"kind":"Field","alias":{"kind":"Name","value":"active"},"name":{"kind":"Name","value":"couponTemplates"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"1"}},{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"status"},"value":{"kind":"EnumValue","value":"ACTIVE"}},{"kind":"ObjectField","name":{"kind":"Name","value":"shopNumber"},"value":{"kind":"Variable","name":{"kind":"Name","value":"shop"}}}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}}]}},{"kind":"Field","alias":{"kind":"Name","value":"ended"},"name":{"kind":"Name","value":"couponTemplates"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"1"}},{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"status"},"value":{"kind":"EnumValue","value":"ENDED"}},{"kind":"ObjectField","name":{"kind":"Name","value":"shopNumber"},"value":{"kind":"Variable","name":{"kind":"Name","value":"shop"}}}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}}]}}]}}]} as unknown as DocumentNode<DashboardQuery, DashboardQueryVariables>;
export const OpenTemplatesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"OpenTemplates"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"shop"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","alias":{"kind":"Name","value":"notStarted"},"name":{"kind":"Name","value":"couponTemplates"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"50"}},{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"status"},"value":{"kind":"EnumValue","value":"NOT_STARTED"}},{"kind":"ObjectField","name":{"kind":"Name","value":"source"},"value":{"kind":"EnumValue","value":"SHOP"}},{"kind":"ObjectField","name":{"kind":"Name","value":"shopNumber"},"value":{"kind":"Variable","name":{"kind":"Name","value":"shop"}}}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}}]}}]}},{"kind":"Field","alias":{"kind":"Name","value":"active"},"name":{"kind":"Name","value":"couponTemplates"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"50"}},{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"ObjectValue","fields":[{"kind":"ObjectField","name":{"kind":"Name","value":"status"},"value":{"kind":"EnumValue","value":"ACTIVE"}},{"kind":"ObjectField","name":{"kind":"Name","value":"source"},"value":{"kind":"EnumValue","value":"SHOP"}},{"kind":"ObjectField","name":{"kind":"Name","value":"shopNumber"},"value":{"kind":"Variable","name":{"kind":"Name","value":"shop"}}}]}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}}]}}]}}]}}]} as unknown as DocumentNode<OpenTemplatesQuery, OpenTemplatesQueryVariables>;
export const CreateTaskDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CreateTask"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CreateCouponTaskInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"createCouponTask"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"task"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"sendNum"}},{"kind":"Field","name":{"kind":"Name","value":"processedRows"}},{"kind":"Field","name":{"kind":"Name","value":"successCount"}},{"kind":"Field","name":{"kind":"Name","value":"failCount"}}]}},{"kind":"Field","name":{"kind":"Name","value":"userErrors"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<CreateTaskMutation, CreateTaskMutationVariables>;
export const TaskViewDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"TaskView"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"couponTask"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"sendType"}},{"kind":"Field","name":{"kind":"Name","value":"processedRows"}},{"kind":"Field","name":{"kind":"Name","value":"successCount"}},{"kind":"Field","name":{"kind":"Name","value":"failCount"}},{"kind":"Field","name":{"kind":"Name","value":"failureReportUrl"}},{"kind":"Field","name":{"kind":"Name","value":"failureReason"}},{"kind":"Field","name":{"kind":"Name","value":"fileName"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"completedAt"}},{"kind":"Field","name":{"kind":"Name","value":"template"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}},{"kind":"Field","name":{"kind":"Name","value":"failureCounts"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"count"}}]}},{"kind":"Field","name":{"kind":"Name","value":"failures"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"50"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"rowNum"}},{"kind":"Field","name":{"kind":"Name","value":"userId"}},{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"reason"}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<TaskViewQuery, TaskViewQueryVariables>;
export const TaskProgressDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"subscription","name":{"kind":"Name","value":"TaskProgress"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"couponTaskProgress"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"sendNum"}},{"kind":"Field","name":{"kind":"Name","value":"processedRows"}},{"kind":"Field","name":{"kind":"Name","value":"successCount"}},{"kind":"Field","name":{"kind":"Name","value":"failCount"}}]}}]}}]} as unknown as DocumentNode<TaskProgressSubscription, TaskProgressSubscriptionVariables>;
export const CancelTaskDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"CancelTask"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"CancelCouponTaskInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cancelCouponTask"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"task"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"status"}}]}},{"kind":"Field","name":{"kind":"Name","value":"userErrors"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<CancelTaskMutation, CancelTaskMutationVariables>;
export const ReconciliationDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Reconciliation"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"couponTemplate"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}},{"kind":"Field","name":{"kind":"Name","value":"reconciliation"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"templateId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"templateId"}},{"kind":"Field","name":{"kind":"Name","value":"totalStock"}},{"kind":"Field","name":{"kind":"Name","value":"redisStock"}},{"kind":"Field","name":{"kind":"Name","value":"dbStock"}},{"kind":"Field","name":{"kind":"Name","value":"issued"}},{"kind":"Field","name":{"kind":"Name","value":"pending"}},{"kind":"Field","name":{"kind":"Name","value":"failed"}},{"kind":"Field","name":{"kind":"Name","value":"balanced"}},{"kind":"Field","name":{"kind":"Name","value":"drift"}},{"kind":"Field","name":{"kind":"Name","value":"redisChecked"}},{"kind":"Field","name":{"kind":"Name","value":"checkedAt"}}]}}]}}]} as unknown as DocumentNode<ReconciliationQuery, ReconciliationQueryVariables>;
export const TasksDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Tasks"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"shop"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"couponTasks"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"shopNumber"},"value":{"kind":"Variable","name":{"kind":"Name","value":"shop"}}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"50"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"processedRows"}},{"kind":"Field","name":{"kind":"Name","value":"successCount"}},{"kind":"Field","name":{"kind":"Name","value":"failCount"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"completedAt"}},{"kind":"Field","name":{"kind":"Name","value":"template"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<TasksQuery, TasksQueryVariables>;
export const TemplateDetailDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"TemplateDetail"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"id"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"ID"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"couponTemplate"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"id"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"shopNumber"}},{"kind":"Field","name":{"kind":"Name","value":"source"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"target"}},{"kind":"Field","name":{"kind":"Name","value":"goods"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"stock"}},{"kind":"Field","name":{"kind":"Name","value":"totalStock"}},{"kind":"Field","name":{"kind":"Name","value":"limitPerPerson"}},{"kind":"Field","name":{"kind":"Name","value":"validStartTime"}},{"kind":"Field","name":{"kind":"Name","value":"validEndTime"}},{"kind":"Field","name":{"kind":"Name","value":"validityHours"}},{"kind":"Field","name":{"kind":"Name","value":"refundPolicy"}},{"kind":"Field","name":{"kind":"Name","value":"discountAmount"}},{"kind":"Field","name":{"kind":"Name","value":"discountRate"}},{"kind":"Field","name":{"kind":"Name","value":"thresholdAmount"}},{"kind":"Field","name":{"kind":"Name","value":"maxDiscountAmount"}},{"kind":"Field","name":{"kind":"Name","value":"createdAt"}},{"kind":"Field","name":{"kind":"Name","value":"stats"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalStock"}},{"kind":"Field","name":{"kind":"Name","value":"remainingStock"}},{"kind":"Field","name":{"kind":"Name","value":"issuedCount"}},{"kind":"Field","name":{"kind":"Name","value":"lockedCount"}},{"kind":"Field","name":{"kind":"Name","value":"usedCount"}},{"kind":"Field","name":{"kind":"Name","value":"expiredCount"}},{"kind":"Field","name":{"kind":"Name","value":"refundedCount"}},{"kind":"Field","name":{"kind":"Name","value":"discountTotal"}},{"kind":"Field","name":{"kind":"Name","value":"redeemRate"}},{"kind":"Field","name":{"kind":"Name","value":"issuedByOrigin"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"claim"}},{"kind":"Field","name":{"kind":"Name","value":"distribution"}}]}},{"kind":"Field","name":{"kind":"Name","value":"daily"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"date"}},{"kind":"Field","name":{"kind":"Name","value":"issued"}},{"kind":"Field","name":{"kind":"Name","value":"used"}},{"kind":"Field","name":{"kind":"Name","value":"discount"}}]}}]}}]}},{"kind":"Field","name":{"kind":"Name","value":"templateLog"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"templateId"},"value":{"kind":"Variable","name":{"kind":"Name","value":"id"}}},{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"IntValue","value":"20"}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"actor"}},{"kind":"Field","name":{"kind":"Name","value":"action"}},{"kind":"Field","name":{"kind":"Name","value":"at"}},{"kind":"Field","name":{"kind":"Name","value":"before"}},{"kind":"Field","name":{"kind":"Name","value":"after"}}]}}]}}]}}]}}]} as unknown as DocumentNode<TemplateDetailQuery, TemplateDetailQueryVariables>;
export const IncreaseStockDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"IncreaseStock"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"IncreaseStockInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"increaseCouponTemplateStock"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"template"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"stock"}},{"kind":"Field","name":{"kind":"Name","value":"totalStock"}}]}},{"kind":"Field","name":{"kind":"Name","value":"userErrors"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<IncreaseStockMutation, IncreaseStockMutationVariables>;
export const TerminateDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"mutation","name":{"kind":"Name","value":"Terminate"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"input"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"TerminateCouponTemplateInput"}}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"terminateCouponTemplate"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"input"},"value":{"kind":"Variable","name":{"kind":"Name","value":"input"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"template"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"validEndTime"}}]}},{"kind":"Field","name":{"kind":"Name","value":"userErrors"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"code"}},{"kind":"Field","name":{"kind":"Name","value":"field"}},{"kind":"Field","name":{"kind":"Name","value":"message"}}]}}]}}]}}]} as unknown as DocumentNode<TerminateMutation, TerminateMutationVariables>;
export const TemplatesDocument = {"kind":"Document","definitions":[{"kind":"OperationDefinition","operation":"query","name":{"kind":"Name","value":"Templates"},"variableDefinitions":[{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"first"}},"type":{"kind":"NonNullType","type":{"kind":"NamedType","name":{"kind":"Name","value":"Int"}}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"after"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"String"}}},{"kind":"VariableDefinition","variable":{"kind":"Variable","name":{"kind":"Name","value":"filter"}},"type":{"kind":"NamedType","name":{"kind":"Name","value":"CouponTemplateFilter"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"couponTemplates"},"arguments":[{"kind":"Argument","name":{"kind":"Name","value":"first"},"value":{"kind":"Variable","name":{"kind":"Name","value":"first"}}},{"kind":"Argument","name":{"kind":"Name","value":"after"},"value":{"kind":"Variable","name":{"kind":"Name","value":"after"}}},{"kind":"Argument","name":{"kind":"Name","value":"filter"},"value":{"kind":"Variable","name":{"kind":"Name","value":"filter"}}}],"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"totalCount"}},{"kind":"Field","name":{"kind":"Name","value":"pageInfo"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"hasNextPage"}},{"kind":"Field","name":{"kind":"Name","value":"endCursor"}}]}},{"kind":"Field","name":{"kind":"Name","value":"edges"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"cursor"}},{"kind":"Field","name":{"kind":"Name","value":"node"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"id"}},{"kind":"Field","name":{"kind":"Name","value":"name"}},{"kind":"Field","name":{"kind":"Name","value":"type"}},{"kind":"Field","name":{"kind":"Name","value":"status"}},{"kind":"Field","name":{"kind":"Name","value":"stock"}},{"kind":"Field","name":{"kind":"Name","value":"totalStock"}},{"kind":"Field","name":{"kind":"Name","value":"validStartTime"}},{"kind":"Field","name":{"kind":"Name","value":"validEndTime"}},{"kind":"Field","name":{"kind":"Name","value":"discountAmount"}},{"kind":"Field","name":{"kind":"Name","value":"discountRate"}},{"kind":"Field","name":{"kind":"Name","value":"thresholdAmount"}},{"kind":"Field","name":{"kind":"Name","value":"stats"},"selectionSet":{"kind":"SelectionSet","selections":[{"kind":"Field","name":{"kind":"Name","value":"issuedCount"}},{"kind":"Field","name":{"kind":"Name","value":"usedCount"}},{"kind":"Field","name":{"kind":"Name","value":"redeemRate"}},{"kind":"Field","name":{"kind":"Name","value":"discountTotal"}}]}}]}}]}}]}}]}}]} as unknown as DocumentNode<TemplatesQuery, TemplatesQueryVariables>;