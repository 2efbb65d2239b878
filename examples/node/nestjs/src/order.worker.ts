import { Injectable } from '@nestjs/common'
import { JobWorker } from '@jobwire/nestjs'
import { JobError, type Job } from '@jobwire/sdk'
import { z } from 'zod'
import { PaymentsService } from './payments.service'

/** The job's input: validated before the handler runs; only these variables are fetched. */
export const Charge = z.object({ orderId: z.string(), amount: z.number() })

@Injectable()
export class OrderWorker {
  constructor(private readonly payments: PaymentsService) {}

  @JobWorker({ type: 'charge-card', variables: Charge, maxJobsActive: 8 })
  async charge(job: Job<z.infer<typeof Charge>>, { signal }: { signal: AbortSignal }) {
    const { orderId, amount } = job.variables // typed: { orderId: string; amount: number }
    if (amount <= 0) throw new JobError('NO_AMOUNT', `order ${orderId}: nothing to charge`)
    return { receipt: await this.payments.charge(orderId, amount, signal) }
  }
}
