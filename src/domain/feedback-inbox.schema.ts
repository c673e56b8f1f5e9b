/**
 * The merchant's feedback inbox (`/merchant/feedback`): members' feedback about the merchant's devices, read and
 * answered by the merchant (and the admin). The member sees the reply on `/user/feedback`.
 */
import { z } from 'zod';
import { PageQuerySchema, QueryIdSchema, type FEEDBACK_CATEGORIES } from './api';

export const FEEDBACK_STATES = { open: '待回复', replied: '已回复' } as const;

export const FeedbackInboxQuerySchema = PageQuerySchema.extend({
  q: z.string().trim().max(64, '搜索词最多 64 个字').optional(),
  state: z.enum(['open', 'replied']).optional(),
  merchant_id: QueryIdSchema.optional(),
});
export type FeedbackInboxQuery = z.input<typeof FeedbackInboxQuerySchema>;

export const FeedbackReplySchema = z.object({
  reply: z.string('请输入回复').trim().min(2, '回复至少 2 个字').max(500, '回复最多 500 字'),
});
export type FeedbackReply = z.input<typeof FeedbackReplySchema>;

export interface InboxFeedback {
  id: number;
  category: keyof typeof FEEDBACK_CATEGORIES;
  content: string;
  merchant_id: number | null;
  member: { id: number; nickname: string };
  device: { id: number; name: string; serial: string } | null;
  reply: string | null;
  replied_at: string | null;
  replied_by: string | null;
  created_at: string;
}

/** The list page plus the inbox's unanswered count (for the 首页 tile and the screen's header). */
export interface FeedbackInboxPage {
  items: InboxFeedback[];
  total: number;
  page: number;
  page_size: number;
  open: number;
}
