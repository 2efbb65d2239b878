package io.jobwire.spring;

import io.jobwire.annotation.JobWorker;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Collects the beans that have {@code @JobWorker} methods as the context creates them (a
 * {@link BeanPostProcessor}: no bean is created early and lazy beans stay lazy);
 * {@link JobwireLifecycle} opens their workers once the context is ready.
 */
public class JobWorkerBeans implements BeanPostProcessor {
  /** A bean with workers, in creation order. */
  public record Entry(String beanName, Object bean) {}

  private final List<Entry> beans = new ArrayList<>();

  @Override
  public Object postProcessAfterInitialization(Object bean, String beanName) {
    if (hasWorkers(AopUtils.getTargetClass(bean))) {
      synchronized (beans) {
        beans.add(new Entry(beanName, bean));
      }
    }
    return bean;
  }

  static boolean hasWorkers(Class<?> type) {
    for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
      for (Method m : c.getDeclaredMethods()) if (m.isAnnotationPresent(JobWorker.class)) return true;
    }
    return false;
  }

  /** @return the beans with {@code @JobWorker} methods seen so far */
  public List<Entry> beans() {
    synchronized (beans) {
      return List.copyOf(beans);
    }
  }
}
