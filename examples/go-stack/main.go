// A GPU pod placed from the catalog, the network volume it mounts, and a sandbox.
package main

import (
	"fmt"

	"example.com/pulumi-compute/sdk/go/compute"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		// A pod mounting a network volume must run in the volume's data center.
		dataCenterID := orDefault(cfg.Get("dataCenterId"), "US-TX-3")
		mountPath := orDefault(cfg.Get("mountPath"), "/checkpoints")
		minGpuMemoryGB := cfg.GetInt("minGpuMemoryGb")
		if minGpuMemoryGB == 0 {
			minGpuMemoryGB = 80
		}
		idleTimeoutSeconds := cfg.GetInt("idleTimeoutSeconds")
		if idleTimeoutSeconds == 0 {
			idleTimeoutSeconds = 600
		}

		checkpoints, err := compute.NewNetworkVolume(ctx, "checkpoints", &compute.NetworkVolumeArgs{
			DataCenterId: pulumi.String(dataCenterID),
			Size:         pulumi.Int(50),
		})
		if err != nil {
			return err
		}
		// volumeId mounts a volume made outside the stack instead (the stack's is kept).
		volumeID := checkpoints.VolumeId
		if id := cfg.Get("volumeId"); id != "" {
			volumeID = pulumi.String(id).ToStringOutput()
		}

		catalog, err := compute.GetGpuTypes(ctx)
		if err != nil {
			return err
		}
		gpuTypeID, err := cheapestInStock(catalog.GpuTypes, dataCenterID, minGpuMemoryGB)
		if err != nil {
			return err
		}

		env := pulumi.StringMap{}
		// A secret config value stays a secret: the state holds only its ciphertext.
		if token, err := cfg.TrySecret("apiToken"); err == nil {
			env["API_TOKEN"] = token
		}
		trainer, err := compute.NewPod(ctx, "trainer", &compute.PodArgs{
			Image:         pulumi.String("pytorch/pytorch:2.4.0-cuda12.4-cudnn9-runtime"),
			Gpu:           &compute.PodGpuArgs{Id: pulumi.String(gpuTypeID)},
			DataCenterIds: pulumi.StringArray{pulumi.String(dataCenterID)},
			Mounts: &compute.PodMountsArgs{Network: compute.PodMountsNetworkArray{
				&compute.PodMountsNetworkArgs{VolumeId: volumeID, Path: pulumi.String(mountPath)},
			}},
			Args:         pulumi.Sprintf("python train.py --checkpoints %s", mountPath),
			Ports:        pulumi.StringArray{pulumi.String("22/tcp"), pulumi.String("8888/http")},
			StartSsh:     pulumi.Bool(cfg.GetBool("startSsh")),
			StartJupyter: pulumi.Bool(true),
			Env:          env,
		})
		if err != nil {
			return err
		}

		notebook, err := compute.NewSandbox(ctx, "notebook", &compute.SandboxArgs{
			Image: pulumi.String("python:3.12-slim"),
			Compute: &compute.SandboxComputeArgs{
				VcpuCount: pulumi.Int(2), MemoryInGb: pulumi.Float64(4), ContainerDiskInGb: pulumi.Int(10),
			},
			IdleTimeoutSeconds: pulumi.Int(idleTimeoutSeconds),
			Labels:             pulumi.StringMap{"team": pulumi.String("research")},
		})
		if err != nil {
			return err
		}

		// sharedVolume names a network volume made outside the stack (the account's datasets, say):
		// looked up by name, then read into the stack by its id. The stack never creates, changes
		// or deletes what it only reads.
		if name := cfg.Get("sharedVolume"); name != "" {
			found, err := compute.LookupNetworkVolume(ctx, &compute.LookupNetworkVolumeArgs{Name: &name})
			if err != nil {
				return err
			}
			shared, err := compute.GetNetworkVolume(ctx, "shared", pulumi.ID(found.Id), nil)
			if err != nil {
				return err
			}
			ctx.Export("sharedVolumeFoundId", pulumi.String(found.Id))
			ctx.Export("sharedVolumeFoundSize", pulumi.Int(found.Size))
			ctx.Export("sharedVolumeId", shared.VolumeId)
			ctx.Export("sharedVolumeSize", shared.AppliedSize)
			ctx.Export("sharedVolumeDataCenter", shared.AppliedDataCenterId)
		}

		// Given a window (billingFrom..billingTo, RFC 3339), what the account's clusters were
		// billed in it, as the service's billing records say (GETs only; the key needs the
		// billing scope).
		if from, to := cfg.Get("billingFrom"), cfg.Get("billingTo"); from != "" && to != "" {
			hour := compute.GetClusterBillingBucketSizeHour
			spend, err := compute.GetClusterBilling(ctx, &compute.GetClusterBillingArgs{StartTime: &from, EndTime: &to, BucketSize: &hour})
			if err != nil {
				return err
			}
			records := pulumi.Array{}
			for _, r := range spend.Records {
				records = append(records, pulumi.Map{
					"clusterId": pulumi.String(r.ClusterId), "startTime": pulumi.String(r.StartTime),
					"endTime": pulumi.String(r.EndTime), "totalAmount": pulumi.Float64(r.TotalAmount),
				})
			}
			ctx.Export("clusterSpend", records)
		}

		ctx.Export("gpuTypeId", trainer.GpuTypeId)
		ctx.Export("volumeId", checkpoints.VolumeId)
		ctx.Export("podId", trainer.PodId)
		ctx.Export("podStatus", trainer.Status)
		ctx.Export("jupyterPassword", trainer.JupyterPassword) // a secret: `pulumi stack output --show-secrets`
		ctx.Export("sandboxId", notebook.SandboxId)
		ctx.Export("sandboxState", notebook.State)
		ctx.Export("appliedIdleTimeoutSeconds", notebook.AppliedIdleTimeoutSeconds)
		ctx.Export("costPerHour", pulumi.All(trainer.CostPerHour, notebook.CostPerHour).ApplyT(
			func(costs []any) float64 { return costs[0].(float64) + costs[1].(float64) }))
		return nil
	})
}

// cheapestInStock is the cheapest secure-cloud GPU type with enough memory that the data center
// has in stock.
func cheapestInStock(gpuTypes []compute.GetGpuTypesGpuType, dataCenterID string, minMemoryGB int) (string, error) {
	best := -1
	for i, gpu := range gpuTypes {
		if !gpu.Secure || gpu.Memory < minMemoryGB || !inStock(gpu, dataCenterID) {
			continue
		}
		if best < 0 || gpu.Price.Secure < gpuTypes[best].Price.Secure {
			best = i
		}
	}
	if best < 0 {
		return "", fmt.Errorf("no secure GPU type with %d GB or more is in stock in %s", minMemoryGB, dataCenterID)
	}
	return gpuTypes[best].Id, nil
}

func inStock(gpu compute.GetGpuTypesGpuType, dataCenterID string) bool {
	for _, dc := range gpu.DataCenters {
		if dc.Id == dataCenterID && dc.Availability != "NONE" {
			return true
		}
	}
	return false
}

func orDefault(value, fallback string) string {
	if value == "" {
		return fallback
	}
	return value
}
