import { Type } from "@sinclair/typebox";
import { DateTime, Nullable, strictObject } from "./common.js";

export const ScheduleSet = strictObject(
  { schedule: Type.String({ minLength: 1, maxLength: 100, description: "hourly, daily, weekly, or a five-field cron expression in UTC (e.g. '30 2 * * 1-5'); the free plan allows at most daily" }) },
  { $id: "ScheduleSet" },
);

export const ScheduleOut = Type.Object(
  {
    data_source_id: Type.String(),
    schedule: Type.String(),
    next_run_at: DateTime,
    last_run_at: Nullable(DateTime),
  },
  { $id: "ScheduleOut" },
);
