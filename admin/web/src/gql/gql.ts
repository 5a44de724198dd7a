/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query Viewer {\n    viewer {\n      role\n      userId\n      shopNumber\n      expiresAt\n      settings { statsTimeZone statsMaxDays uploadMaxBytes redeemMode }\n    }\n  }\n": typeof types.ViewerDocument,
    "\n  mutation CreateTemplate($input: CreateCouponTemplateInput!) {\n    createCouponTemplate(input: $input) {\n      template { id name status }\n      userErrors { code field message }\n    }\n  }\n": typeof types.CreateTemplateDocument,
    "\n  query Dashboard($shop: String, $from: Time, $to: Time) {\n    shopStats(shopNumber: $shop, from: $from, to: $to) {\n      shopNumber templates issuedCount usedCount discountTotal lockedCount expiredCount refundedCount\n      daily { date issued used discount }\n      topByIssued { templateId templateName issuedCount usedCount redeemRate discountTotal }\n    }\n    notStarted: couponTemplates(first: 1, filter: { status: NOT_STARTED, shopNumber: $shop }) { totalCount }\n    active: couponTemplates(first: 1, filter: { status: ACTIVE, shopNumber: $shop }) { totalCount }\n    ended: couponTemplates(first: 1, filter: { status: ENDED, shopNumber: $shop }) { totalCount }\n  }\n": typeof types.DashboardDocument,
    "\n  query OpenTemplates($shop: String) {\n    notStarted: couponTemplates(first: 50, filter: { status: NOT_STARTED, source: SHOP, shopNumber: $shop }) { edges { node { id name } } }\n    active: couponTemplates(first: 50, filter: { status: ACTIVE, source: SHOP, shopNumber: $shop }) { edges { node { id name } } }\n  }\n": typeof types.OpenTemplatesDocument,
    "\n  mutation CreateTask($input: CreateCouponTaskInput!) {\n    createCouponTask(input: $input) {\n      task { id status sendNum processedRows successCount failCount }\n      userErrors { code field message }\n    }\n  }\n": typeof types.CreateTaskDocument,
    "\n  query TaskView($id: ID!) {\n    couponTask(id: $id) {\n      id name status sendType processedRows successCount failCount failureReportUrl failureReason fileName createdAt completedAt\n      template { id name }\n      failureCounts { code count }\n      failures(first: 50) { totalCount edges { cursor node { rowNum userId code reason } } }\n    }\n  }\n": typeof types.TaskViewDocument,
    "\n  subscription TaskProgress($id: ID!) {\n    couponTaskProgress(id: $id) { id status sendNum processedRows successCount failCount }\n  }\n": typeof types.TaskProgressDocument,
    "\n  mutation CancelTask($input: CancelCouponTaskInput!) {\n    cancelCouponTask(input: $input) { task { id status } userErrors { code field message } }\n  }\n": typeof types.CancelTaskDocument,
    "\n  query Reconciliation($id: ID!) {\n    couponTemplate(id: $id) { id name }\n    reconciliation(templateId: $id) {\n      templateId totalStock redisStock dbStock issued pending failed balanced drift redisChecked checkedAt\n    }\n  }\n": typeof types.ReconciliationDocument,
    "\n  query Tasks($shop: String) {\n    couponTasks(shopNumber: $shop, first: 50) {\n      totalCount\n      edges { node { id name status processedRows successCount failCount createdAt completedAt template { id name } } }\n    }\n  }\n": typeof types.TasksDocument,
    "\n  query TemplateDetail($id: ID!) {\n    couponTemplate(id: $id) {\n      id name shopNumber source type target goods status stock totalStock limitPerPerson\n      validStartTime validEndTime validityHours refundPolicy discountAmount discountRate thresholdAmount maxDiscountAmount createdAt\n      stats {\n        totalStock remainingStock issuedCount lockedCount usedCount expiredCount refundedCount discountTotal redeemRate\n        issuedByOrigin { claim distribution }\n        daily { date issued used discount }\n      }\n    }\n    templateLog(templateId: $id, first: 20) {\n      totalCount\n      edges { cursor node { actor action at before after } }\n    }\n  }\n": typeof types.TemplateDetailDocument,
    "\n  mutation IncreaseStock($input: IncreaseStockInput!) {\n    increaseCouponTemplateStock(input: $input) {\n      template { id stock totalStock }\n      userErrors { code field message }\n    }\n  }\n": typeof types.IncreaseStockDocument,
    "\n  mutation Terminate($input: TerminateCouponTemplateInput!) {\n    terminateCouponTemplate(input: $input) {\n      template { id status validEndTime }\n      userErrors { code field message }\n    }\n  }\n": typeof types.TerminateDocument,
    "\n  query Templates($first: Int!, $after: String, $filter: CouponTemplateFilter) {\n    couponTemplates(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges {\n        cursor\n        node {\n          id name type status stock totalStock validStartTime validEndTime\n          discountAmount discountRate thresholdAmount\n          stats { issuedCount usedCount redeemRate discountTotal }\n        }\n      }\n    }\n  }\n": typeof types.TemplatesDocument,
};
const documents: Documents = {
    "\n  query Viewer {\n    viewer {\n      role\n      userId\n      shopNumber\n      expiresAt\n      settings { statsTimeZone statsMaxDays uploadMaxBytes redeemMode }\n    }\n  }\n": types.ViewerDocument,
    "\n  mutation CreateTemplate($input: CreateCouponTemplateInput!) {\n    createCouponTemplate(input: $input) {\n      template { id name status }\n      userErrors { code field message }\n    }\n  }\n": types.CreateTemplateDocument,
    "\n  query Dashboard($shop: String, $from: Time, $to: Time) {\n    shopStats(shopNumber: $shop, from: $from, to: $to) {\n      shopNumber templates issuedCount usedCount discountTotal lockedCount expiredCount refundedCount\n      daily { date issued used discount }\n      topByIssued { templateId templateName issuedCount usedCount redeemRate discountTotal }\n    }\n    notStarted: couponTemplates(first: 1, filter: { status: NOT_STARTED, shopNumber: $shop }) { totalCount }\n    active: couponTemplates(first: 1, filter: { status: ACTIVE, shopNumber: $shop }) { totalCount }\n    ended: couponTemplates(first: 1, filter: { status: ENDED, shopNumber: $shop }) { totalCount }\n  }\n": types.DashboardDocument,
    "\n  query OpenTemplates($shop: String) {\n    notStarted: couponTemplates(first: 50, filter: { status: NOT_STARTED, source: SHOP, shopNumber: $shop }) { edges { node { id name } } }\n    active: couponTemplates(first: 50, filter: { status: ACTIVE, source: SHOP, shopNumber: $shop }) { edges { node { id name } } }\n  }\n": types.OpenTemplatesDocument,
    "\n  mutation CreateTask($input: CreateCouponTaskInput!) {\n    createCouponTask(input: $input) {\n      task { id status sendNum processedRows successCount failCount }\n      userErrors { code field message }\n    }\n  }\n": types.CreateTaskDocument,
    "\n  query TaskView($id: ID!) {\n    couponTask(id: $id) {\n      id name status sendType processedRows successCount failCount failureReportUrl failureReason fileName createdAt completedAt\n      template { id name }\n      failureCounts { code count }\n      failures(first: 50) { totalCount edges { cursor node { rowNum userId code reason } } }\n    }\n  }\n": types.TaskViewDocument,
    "\n  subscription TaskProgress($id: ID!) {\n    couponTaskProgress(id: $id) { id status sendNum processedRows successCount failCount }\n  }\n": types.TaskProgressDocument,
    "\n  mutation CancelTask($input: CancelCouponTaskInput!) {\n    cancelCouponTask(input: $input) { task { id status } userErrors { code field message } }\n  }\n": types.CancelTaskDocument,
    "\n  query Reconciliation($id: ID!) {\n    couponTemplate(id: $id) { id name }\n    reconciliation(templateId: $id) {\n      templateId totalStock redisStock dbStock issued pending failed balanced drift redisChecked checkedAt\n    }\n  }\n": types.ReconciliationDocument,
    "\n  query Tasks($shop: String) {\n    couponTasks(shopNumber: $shop, first: 50) {\n      totalCount\n      edges { node { id name status processedRows successCount failCount createdAt completedAt template { id name } } }\n    }\n  }\n": types.TasksDocument,
    "\n  query TemplateDetail($id: ID!) {\n    couponTemplate(id: $id) {\n      id name shopNumber source type target goods status stock totalStock limitPerPerson\n      validStartTime validEndTime validityHours refundPolicy discountAmount discountRate thresholdAmount maxDiscountAmount createdAt\n      stats {\n        totalStock remainingStock issuedCount lockedCount usedCount expiredCount refundedCount discountTotal redeemRate\n        issuedByOrigin { claim distribution }\n        daily { date issued used discount }\n      }\n    }\n    templateLog(templateId: $id, first: 20) {\n      totalCount\n      edges { cursor node { actor action at before after } }\n    }\n  }\n": types.TemplateDetailDocument,
    "\n  mutation IncreaseStock($input: IncreaseStockInput!) {\n    increaseCouponTemplateStock(input: $input) {\n      template { id stock totalStock }\n      userErrors { code field message }\n    }\n  }\n": types.IncreaseStockDocument,
    "\n  mutation Terminate($input: TerminateCouponTemplateInput!) {\n    terminateCouponTemplate(input: $input) {\n      template { id status validEndTime }\n      userErrors { code field message }\n    }\n  }\n": types.TerminateDocument,
    "\n  query Templates($first: Int!, $after: String, $filter: CouponTemplateFilter) {\n    couponTemplates(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges {\n        cursor\n        node {\n          id name type status stock totalStock validStartTime validEndTime\n          discountAmount discountRate thresholdAmount\n          stats { issuedCount usedCount redeemRate discountTotal }\n        }\n      }\n    }\n  }\n": types.TemplatesDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Viewer {\n    viewer {\n      role\n      userId\n      shopNumber\n      expiresAt\n      settings { statsTimeZone statsMaxDays uploadMaxBytes redeemMode }\n    }\n  }\n"): (typeof documents)["\n  query Viewer {\n    viewer {\n      role\n      userId\n      shopNumber\n      expiresAt\n      settings { statsTimeZone statsMaxDays uploadMaxBytes redeemMode }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateTemplate($input: CreateCouponTemplateInput!) {\n    createCouponTemplate(input: $input) {\n      template { id name status }\n      userErrors { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation CreateTemplate($input: CreateCouponTemplateInput!) {\n    createCouponTemplate(input: $input) {\n      template { id name status }\n      userErrors { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Dashboard($shop: String, $from: Time, $to: Time) {\n    shopStats(shopNumber: $shop, from: $from, to: $to) {\n      shopNumber templates issuedCount usedCount discountTotal lockedCount expiredCount refundedCount\n      daily { date issued used discount }\n      topByIssued { templateId templateName issuedCount usedCount redeemRate discountTotal }\n    }\n    notStarted: couponTemplates(first: 1, filter: { status: NOT_STARTED, shopNumber: $shop }) { totalCount }\n    active: couponTemplates(first: 1, filter: { status: ACTIVE, shopNumber: $shop }) { totalCount }\n    ended: couponTemplates(first: 1, filter: { status: ENDED, shopNumber: $shop }) { totalCount }\n  }\n"): (typeof documents)["\n  query Dashboard($shop: String, $from: Time, $to: Time) {\n    shopStats(shopNumber: $shop, from: $from, to: $to) {\n      shopNumber templates issuedCount usedCount discountTotal lockedCount expiredCount refundedCount\n      daily { date issued used discount }\n      topByIssued { templateId templateName issuedCount usedCount redeemRate discountTotal }\n    }\n    notStarted: couponTemplates(first: 1, filter: { status: NOT_STARTED, shopNumber: $shop }) { totalCount }\n    active: couponTemplates(first: 1, filter: { status: ACTIVE, shopNumber: $shop }) { totalCount }\n    ended: couponTemplates(first: 1, filter: { status: ENDED, shopNumber: $shop }) { totalCount }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query OpenTemplates($shop: String) {\n    notStarted: couponTemplates(first: 50, filter: { status: NOT_STARTED, source: SHOP, shopNumber: $shop }) { edges { node { id name } } }\n    active: couponTemplates(first: 50, filter: { status: ACTIVE, source: SHOP, shopNumber: $shop }) { edges { node { id name } } }\n  }\n"): (typeof documents)["\n  query OpenTemplates($shop: String) {\n    notStarted: couponTemplates(first: 50, filter: { status: NOT_STARTED, source: SHOP, shopNumber: $shop }) { edges { node { id name } } }\n    active: couponTemplates(first: 50, filter: { status: ACTIVE, source: SHOP, shopNumber: $shop }) { edges { node { id name } } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateTask($input: CreateCouponTaskInput!) {\n    createCouponTask(input: $input) {\n      task { id status sendNum processedRows successCount failCount }\n      userErrors { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation CreateTask($input: CreateCouponTaskInput!) {\n    createCouponTask(input: $input) {\n      task { id status sendNum processedRows successCount failCount }\n      userErrors { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TaskView($id: ID!) {\n    couponTask(id: $id) {\n      id name status sendType processedRows successCount failCount failureReportUrl failureReason fileName createdAt completedAt\n      template { id name }\n      failureCounts { code count }\n      failures(first: 50) { totalCount edges { cursor node { rowNum userId code reason } } }\n    }\n  }\n"): (typeof documents)["\n  query TaskView($id: ID!) {\n    couponTask(id: $id) {\n      id name status sendType processedRows successCount failCount failureReportUrl failureReason fileName createdAt completedAt\n      template { id name }\n      failureCounts { code count }\n      failures(first: 50) { totalCount edges { cursor node { rowNum userId code reason } } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  subscription TaskProgress($id: ID!) {\n    couponTaskProgress(id: $id) { id status sendNum processedRows successCount failCount }\n  }\n"): (typeof documents)["\n  subscription TaskProgress($id: ID!) {\n    couponTaskProgress(id: $id) { id status sendNum processedRows successCount failCount }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CancelTask($input: CancelCouponTaskInput!) {\n    cancelCouponTask(input: $input) { task { id status } userErrors { code field message } }\n  }\n"): (typeof documents)["\n  mutation CancelTask($input: CancelCouponTaskInput!) {\n    cancelCouponTask(input: $input) { task { id status } userErrors { code field message } }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Reconciliation($id: ID!) {\n    couponTemplate(id: $id) { id name }\n    reconciliation(templateId: $id) {\n      templateId totalStock redisStock dbStock issued pending failed balanced drift redisChecked checkedAt\n    }\n  }\n"): (typeof documents)["\n  query Reconciliation($id: ID!) {\n    couponTemplate(id: $id) { id name }\n    reconciliation(templateId: $id) {\n      templateId totalStock redisStock dbStock issued pending failed balanced drift redisChecked checkedAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Tasks($shop: String) {\n    couponTasks(shopNumber: $shop, first: 50) {\n      totalCount\n      edges { node { id name status processedRows successCount failCount createdAt completedAt template { id name } } }\n    }\n  }\n"): (typeof documents)["\n  query Tasks($shop: String) {\n    couponTasks(shopNumber: $shop, first: 50) {\n      totalCount\n      edges { node { id name status processedRows successCount failCount createdAt completedAt template { id name } } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query TemplateDetail($id: ID!) {\n    couponTemplate(id: $id) {\n      id name shopNumber source type target goods status stock totalStock limitPerPerson\n      validStartTime validEndTime validityHours refundPolicy discountAmount discountRate thresholdAmount maxDiscountAmount createdAt\n      stats {\n        totalStock remainingStock issuedCount lockedCount usedCount expiredCount refundedCount discountTotal redeemRate\n        issuedByOrigin { claim distribution }\n        daily { date issued used discount }\n      }\n    }\n    templateLog(templateId: $id, first: 20) {\n      totalCount\n      edges { cursor node { actor action at before after } }\n    }\n  }\n"): (typeof documents)["\n  query TemplateDetail($id: ID!) {\n    couponTemplate(id: $id) {\n      id name shopNumber source type target goods status stock totalStock limitPerPerson\n      validStartTime validEndTime validityHours refundPolicy discountAmount discountRate thresholdAmount maxDiscountAmount createdAt\n      stats {\n        totalStock remainingStock issuedCount lockedCount usedCount expiredCount refundedCount discountTotal redeemRate\n        issuedByOrigin { claim distribution }\n        daily { date issued used discount }\n      }\n    }\n    templateLog(templateId: $id, first: 20) {\n      totalCount\n      edges { cursor node { actor action at before after } }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation IncreaseStock($input: IncreaseStockInput!) {\n    increaseCouponTemplateStock(input: $input) {\n      template { id stock totalStock }\n      userErrors { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation IncreaseStock($input: IncreaseStockInput!) {\n    increaseCouponTemplateStock(input: $input) {\n      template { id stock totalStock }\n      userErrors { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Terminate($input: TerminateCouponTemplateInput!) {\n    terminateCouponTemplate(input: $input) {\n      template { id status validEndTime }\n      userErrors { code field message }\n    }\n  }\n"): (typeof documents)["\n  mutation Terminate($input: TerminateCouponTemplateInput!) {\n    terminateCouponTemplate(input: $input) {\n      template { id status validEndTime }\n      userErrors { code field message }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Templates($first: Int!, $after: String, $filter: CouponTemplateFilter) {\n    couponTemplates(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges {\n        cursor\n        node {\n          id name type status stock totalStock validStartTime validEndTime\n          discountAmount discountRate thresholdAmount\n          stats { issuedCount usedCount redeemRate discountTotal }\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query Templates($first: Int!, $after: String, $filter: CouponTemplateFilter) {\n    couponTemplates(first: $first, after: $after, filter: $filter) {\n      totalCount\n      pageInfo { hasNextPage endCursor }\n      edges {\n        cursor\n        node {\n          id name type status stock totalStock validStartTime validEndTime\n          discountAmount discountRate thresholdAmount\n          stats { issuedCount usedCount redeemRate discountTotal }\n        }\n      }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;